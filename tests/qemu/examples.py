"""What each example must print and do under QEMU. One Spec per example folder."""
import re


class Spec:
    def __init__(self, run, icount=False, timeout=30.0):
        self.run = run
        self.icount = icount
        self.timeout = timeout


def expect_exit_zero(session):
    status = session.wait_exit()
    if status is None:
        return ["QEMU did not exit before the deadline (hang?)"]
    if status != 0:
        return [f"exit status {status} (semihosting), expected 0"]
    return []


def run_hello(session, board, machine):
    problems = expect_exit_zero(session)
    if not re.search(rf"Hello from pl011 \d+\.\d+\.\d+ on {re.escape(board)}\n", session.output):
        problems.append("greeting with version and board name missing")
    match = re.search(r"IBRD=(\d+) FBRD=(\d+), actual (\d+) baud .* FIFO (\d+)", session.output)
    if not match:
        problems.append("divisor line missing")
    elif int(match.group(1)) == 0:
        problems.append("IBRD is 0")
    return problems


SPECS = {
    "hello": Spec(run_hello),
}
