/* Interrupt consumer, AArch64: the two C library functions the driver needs (README), for a
 * firmware without a C library. Built with -fno-builtin -fno-tree-loop-distribute-patterns, so
 * that GCC does not turn the loops back into calls of themselves. */
#include <stddef.h>

void *memcpy(void *destination, const void *source, size_t length);
void *memset(void *destination, int value, size_t length);

void *memcpy(void *destination, const void *source, size_t length)
{
	unsigned char *to = destination;
	const unsigned char *from = source;
	while (length-- > 0u)
		*to++ = *from++;
	return destination;
}

void *memset(void *destination, int value, size_t length)
{
	unsigned char *to = destination;
	while (length-- > 0u)
		*to++ = (unsigned char)value;
	return destination;
}
