"""One QEMU run of one example: its serial port on a Unix socket, its exit status, a deadline."""
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time


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
        self.output = ""
        self.exit_status = None
        self.deadline = time.monotonic() + timeout
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
        self.sock = self._connect(path)
        # QEMU waits for a client on each socket in turn, in the order of the -serial options.
        self.ports = [SerialPort(self._connect(extra)) for extra in extra_paths]
        self._raw = bytearray()

    def _connect(self, path):
        while time.monotonic() < self.deadline:
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

    def _pump(self):
        received = self.pump()
        if received:
            self.output = self._raw.decode("latin-1").replace("\r\n", "\n")
        return received

    def send_unpaced(self, data, timeout):
        """Send as fast as the socket takes the bytes (its 0.2 s timeout only means QEMU took
        none for that long: try again), until the deadline; returns whether all went."""
        end = min(self.deadline, time.monotonic() + timeout)
        view = memoryview(data)
        while view and time.monotonic() < end:
            try:
                view = view[self.sock.send(view):]
            except socket.timeout:
                continue
        return not view

    def read_until(self, text, timeout=None):
        """Wait until text appears in the output; returns True, or False at the deadline."""
        end = self.deadline if timeout is None else min(self.deadline, time.monotonic() + timeout)
        while text not in self.output:
            if time.monotonic() > end:
                return False
            if self._pump() is None and self.process.poll() is not None:
                return text in self.output
        return True

    def read_match(self, pattern, timeout=None):
        """Wait until the regular expression matches the output; returns the match or None."""
        end = self.deadline if timeout is None else min(self.deadline, time.monotonic() + timeout)
        while True:
            match = re.search(pattern, self.output)
            if match or time.monotonic() > end:
                return match
            if self._pump() is None and self.process.poll() is not None:
                return re.search(pattern, self.output)

    def read_raw(self, count, timeout=None):
        """Wait until at least count raw bytes arrived in total."""
        end = self.deadline if timeout is None else min(self.deadline, time.monotonic() + timeout)
        while len(self._raw) < count and time.monotonic() < end:
            if self._pump() is None and self.process.poll() is not None:
                break
        return len(self._raw) >= count

    def wait_exit(self):
        """Collect output until QEMU exits or the deadline passes; returns the exit status."""
        while self.process.poll() is None and time.monotonic() < self.deadline:
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
        for port in [self] + list(getattr(self, "ports", [])):
            try:
                port.sock.close()
            except (OSError, AttributeError):
                pass
        shutil.rmtree(self._folder, ignore_errors=True)
