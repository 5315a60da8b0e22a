/* newlib retarget: stdio through the console UART, a heap bounded by the linker's heap end. */
#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>

#include "board.h"
#include "board_common.h"

int _write(int file, const char *data, int len);
int _read(int file, char *data, int len);
void *_sbrk(ptrdiff_t increment);
int _close(int file);
int _fstat(int file, struct stat *st);
int _isatty(int file);
int _lseek(int file, int offset, int whence);
void _exit(int status);
int _kill(int pid, int sig);
int _getpid(void);

extern char __heap_start[];
extern char __heap_end[];

/* Terminals expect CR LF: pl011_write_console sends each '\n' as "\r\n". */
int _write(int file, const char *data, int len)
{
	if ((file != 1 && file != 2) || len < 0) {
		errno = EBADF;
		return -1;
	}
	(void)pl011_write_console(board_console(), data, (size_t)len, PL011_WAIT_AUTO);
	return len;
}

int _read(int file, char *data, int len)
{
	if (file != 0 || len < 0) {
		errno = EBADF;
		return -1;
	}
	int n = pl011_read(board_console(), data, (size_t)len, BOARD_STDIN_WAIT_US);
	return n < 0 ? -1 : n;
}

void *_sbrk(ptrdiff_t increment)
{
	static char *brk = __heap_start;
	/* As addresses: __heap_start and __heap_end are two objects to C, whose pointers may not be
	 * subtracted from one another (C11 6.5.6p9). */
	uintptr_t at = (uintptr_t)brk;
	if (increment > (ptrdiff_t)((uintptr_t)__heap_end - at) ||
	    increment < -(ptrdiff_t)(at - (uintptr_t)__heap_start)) {
		errno = ENOMEM;
		return (void *)-1;
	}
	char *old = brk;
	brk += increment;
	return old;
}

int _close(int file)
{
	(void)file;
	return -1;
}

int _fstat(int file, struct stat *st)
{
	(void)file;
	st->st_mode = S_IFCHR;
	return 0;
}

int _isatty(int file)
{
	return file >= 0 && file <= 2;
}

int _lseek(int file, int offset, int whence)
{
	(void)file;
	(void)offset;
	(void)whence;
	return 0;
}

void _exit(int status)
{
	board_exit(status);
}

int _kill(int pid, int sig)
{
	(void)pid;
	(void)sig;
	errno = EINVAL;
	return -1;
}

int _getpid(void)
{
	return 1;
}

/* __libc_init_array calls _init after the init arrays; without crti/crtn it has nothing to do. */
void _init(void);
void _fini(void);

void _init(void)
{
}

void _fini(void)
{
}
