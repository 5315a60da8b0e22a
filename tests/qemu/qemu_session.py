"""One QEMU run of one example: its serial port on a Unix socket, its exit status, a deadline."""
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time


class RunClock:
    """Seconds that pass only while the test's processes are not kept waiting for a CPU.

    Every deadline of a QEMU test is on this clock, so that a loaded machine (other builds
    beside make test: QEMU and this script runnable but not running) cannot fail a test. From
    /proc/PID/task/TID/schedstat (its second field: the time the thread waited on a run queue),
    each interval counts its wall time less the longest such wait of any one thread of QEMU or
    of this script in it. Idle, it is the wall clock; under load it slows by the share of a CPU
    the threads lack, never to a stop, so a hang still reaches its deadline. Without schedstat
    (a kernel without CONFIG_SCHED_INFO) it is the wall clock.
    """

    def __init__(self):
        self.pids = [os.getpid()]
        self._lock = threading.Lock()
        self._wall = time.monotonic()
        self._seconds = 0.0
        self._waits = self._read()

    def _read(self):
        waits = {}
        for pid in self.pids:
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for task in tasks:
                try:
                    with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                        waits[(pid, task)] = int(f.read().split()[1]) / 1e9
                except (OSError, IndexError, ValueError):
                    pass
        return waits

    def __call__(self):
        with self._lock:
            wall = time.monotonic()
            if wall - self._wall >= 0.1:
                waits = self._read()
                waited = max((w - self._waits.get(k, w) for k, w in waits.items()), default=0.0)
                self._seconds += max(0.0, (wall - self._wall) - max(0.0, waited))
                self._wall, self._waits = wall, waits
            return self._seconds


class SerialPort:
    """Another serial port of the machine (QEMU's second, third... -serial), on its own socket."""

    def __init__(self, sock):
        self.sock = sock
        self._raw = bytearray()

    def pump(self):
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            return False
        except OSError:
            return None
        if not data:
            return None
        self._raw += data
        return True

    def send(self, data):
        self.sock.sendall(data)

    def raw_bytes(self):
        return bytes(self._raw)


class QemuSession(SerialPort):
    """The machine and its first serial port (the console); pump, send and raw_bytes as for the
    other ports, plus the output as text and the exit status."""

    def __init__(self, base_command, elf, icount=False, timeout=30.0, extra_serials=0):
        self._output = ""
        self._decoded = 0  # bytes of _raw that _output holds
        self.exit_status = None
        self.clock = RunClock()  # every deadline's clock: see RunClock
        self.deadline = self.clock() + timeout
        self._folder = tempfile.mkdtemp(prefix="pl011-qemu-")
        path = os.path.join(self._folder, "serial")
        extra_paths = [os.path.join(self._folder, f"serial{n + 1}") for n in range(extra_serials)]
        command = list(base_command) + ["-display", "none", "-monitor", "none",
                                        "-serial", f"unix:{path},server=on,wait=on",
                                        "-kernel", elf]
        for extra in extra_paths:
            command[-2:-2] = ["-serial", f"unix:{extra},server=on,wait=on"]
        if icount:
            # One instruction per virtual nanosecond: timers then count instructions.
            command += ["-icount", "shift=0,sleep=off"]
        self.command = command
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.clock.pids.append(self.process.pid)
        self._raw = bytearray()
        self.ports = []
        try:
            self.sock = self._connect(path)
            # QEMU waits for a client on each socket in turn, in the order of the -serial options.
            for extra in extra_paths:
                self.ports.append(SerialPort(self._connect(extra)))
        except BaseException:
            self.close()  # no QEMU left running behind a session nobody holds
            raise

    def _connect(self, path):
        while self.clock() < self.deadline:
            if self.process.poll() is not None:
                raise RuntimeError("QEMU exited before opening its serial socket: "
                                   + self.process.stdout.read().decode(errors="replace"))
            if os.path.exists(path):
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    sock.connect(path)
                    sock.settimeout(0.2)
                    return sock
                except OSError:
                    sock.close()
            time.sleep(0.02)
        raise TimeoutError("QEMU serial socket never appeared")

    @property
    def output(self):
        """What the console printed, as text with "\n" line ends (decoded when asked: decoding
        the whole output at every receive made the 1 MiB soak quadratic)."""
        if self._decoded != len(self._raw):
            self._decoded = len(self._raw)
            self._output = self._raw.decode("latin-1").replace("\r\n", "\n")
        return self._output

    def _pump(self):
        return self.pump()

    def send_unpaced(self, data, timeout):
        """Send as fast as the socket takes the bytes (its 0.2 s timeout only means QEMU took
        none for that long: try again), until the deadline; returns whether all went."""
        end = min(self.deadline, self.clock() + timeout)
        view = memoryview(data)
        while view and self.clock() < end:
            try:
                view = view[self.sock.send(view):]
            except socket.timeout:
                continue
        return not view

    def read_until(self, text, timeout=None):
        """Wait until text appears in the output; returns True, or False at the deadline."""
        end = self.deadline if timeout is None else min(self.deadline, self.clock() + timeout)
        while text not in self.output:
            if self.clock() > end:
                return False
            if self._pump() is None and self.process.poll() is not None:
                return text in self.output
        return True

    def read_match(self, pattern, timeout=None):
        """Wait until the regular expression matches the output; returns the match or None."""
        end = self.deadline if timeout is None else min(self.deadline, self.clock() + timeout)
        while True:
            match = re.search(pattern, self.output)
            if match or self.clock() > end:
                return match
            if self._pump() is None and self.process.poll() is not None:
                return re.search(pattern, self.output)

    def read_raw(self, count, timeout=None):
        """Wait until at least count raw bytes arrived in total."""
        end = self.deadline if timeout is None else min(self.deadline, self.clock() + timeout)
        while len(self._raw) < count and self.clock() < end:
            if self._pump() is None and self.process.poll() is not None:
                break
        return len(self._raw) >= count

    def wait_exit(self):
        """Collect output until QEMU exits or the deadline passes; returns the exit status."""
        while self.process.poll() is None and self.clock() < self.deadline:
            self._pump()
        while self._pump():
            pass
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
            self.exit_status = None
        else:
            self.exit_status = self.process.returncode
        return self.exit_status

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        for port in [self] + list(getattr(self, "ports", [])):
            try:
                port.sock.close()
            except (OSError, AttributeError):
                pass
        shutil.rmtree(self._folder, ignore_errors=True)
