#!/usr/bin/env python3
"""Check tools/size.py's strategy rule (--check-strategies) on synthetic nm output, no compiler.

Usage: python3 tests/tools/check_size_strategies.py   (make size-check, part of make test)
Cases: nm's defined symbols are read and its undefined ones are not; the three firmwares of
tests/size/ name what the rule expects (none, MEASURED, all five) and a comment naming one does
not count; a polled image passes with no strategy and fails on each object, each refill and any
pl011_tx_ring_* symbol; a MEASURED image passes with its object, refill, the ring mechanism and
POLL_FULL's refill, and fails on each other object, each other refill and on any required symbol
missing (a rename); an image naming all five needs all of them. The same for the features
(restarting a running port...): named in a firmware, linked; not named, none of its symbols.
Ends with 'N passed, N failed'; exits 1 if any case failed.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import size  # noqa: E402  (tools/ is not a package)

passed = 0
failed = 0


def expect(case, got, want):
    global passed, failed
    if got == want:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: got %r, want %r" % (case, got, want))


def nm(*names, extra=()):
    """nm output defining `names` (in .text), plus other lines given whole."""
    return "\n".join(["00001000 T " + name for name in names] + list(extra)) + "\n"


OTHERS = {"pl011_init", "pl011_write", "size_main", "tx_send_and_release"}
OBJECTS = ["pl011_tx_" + s for s in size.STRATEGIES]
REFILLS = ["pl011_tx_%s_refill" % s for s in size.STRATEGIES]
MEASURED = {"pl011_tx_measured", "pl011_tx_measured_refill", "pl011_tx_ring_ops",
            "pl011_tx_ring_send", "pl011_tx_ring_kick"}

# nm: three fields are a defined symbol (any type: code, read-only data, weak); two are not.
expect("nm defined and undefined",
       size.image_symbols(nm("pl011_init", extra=["00002000 R pl011_tx_measured",
                                                  "00002004 W weak_defined",
                                                  "         w pl011_tx_hybrid",
                                                  "         U pl011_tx_adaptive_refill", ""])),
       {"pl011_init", "pl011_tx_measured", "weak_defined"})

# What the firmwares of tests/size/ name, read from their sources as --check-strategies does.
for firmware, want in (("polled_hi", ()), ("irq_measured_rx", ("measured",)),
                       ("everything", size.STRATEGIES)):
    with open(os.path.join(ROOT, "tests", "size", firmware + ".c")) as handle:
        expect("names of " + firmware, size.named_strategies(handle.read()), want)
expect("comment does not name", size.named_strategies(
    "/* unlike PL011_TX_HYBRID */ // or pl011_tx_adaptive\n.tx_mode = PL011_TX_MEASURED,"),
    ("measured",))
expect("refill alone does not name", size.named_strategies("x = pl011_tx_hybrid_refill;"), ())
expect("object names", size.named_strategies("&pl011_tx_half_fifo"), ("half_fifo",))
expect("POLLED is not POLL_FULL", size.named_strategies("PL011_TX_POLLED"), ())

# Polled: nothing of any strategy nor of the ring mechanism.
expect("polled clean", size.strategy_problems(set(OTHERS), ()), [])
for symbol in OBJECTS + REFILLS + ["pl011_tx_ring_ops", "pl011_tx_ring_send"]:
    expect("polled with " + symbol, size.strategy_problems(OTHERS | {symbol}, ()),
           ["links " + symbol])

# MEASURED: its pair and the mechanism; POLL_FULL's refill allowed, nothing else of the others.
expect("measured clean", size.strategy_problems(OTHERS | MEASURED, ("measured",)), [])
expect("measured with the fallback refill",
       size.strategy_problems(OTHERS | MEASURED | {"pl011_tx_poll_full_refill"}, ("measured",)),
       [])
for symbol in OBJECTS + REFILLS:
    if symbol in MEASURED or symbol == "pl011_tx_poll_full_refill":
        continue
    expect("measured with " + symbol,
           size.strategy_problems(OTHERS | MEASURED | {symbol}, ("measured",)),
           ["links " + symbol])
for symbol in ("pl011_tx_measured", "pl011_tx_measured_refill", "pl011_tx_ring_ops"):
    expect("measured without " + symbol,
           size.strategy_problems((OTHERS | MEASURED) - {symbol}, ("measured",)),
           ["missing " + symbol])
# Today's lib/ (no strategy objects): the rule fails rather than passing unseen.
expect("measured before the split", size.strategy_problems(set(OTHERS), ("measured",)),
       ["missing pl011_tx_measured", "missing pl011_tx_measured_refill",
        "missing pl011_tx_ring_ops"])

# Everything: all five pairs and the mechanism.
everything = OTHERS | set(OBJECTS) | set(REFILLS) | {"pl011_tx_ring_ops"}
expect("everything clean", size.strategy_problems(everything, size.STRATEGIES), [])
expect("everything without hybrid's refill",
       size.strategy_problems(everything - {"pl011_tx_hybrid_refill"}, size.STRATEGIES),
       ["missing pl011_tx_hybrid_refill"])

# Features: what the firmwares name, and the rule on symbols.
for firmware, want in (("polled_hi", ()), ("irq_measured_rx", ("RX ring", "ring rules")),
                       ("everything", tuple(f[0] for f in size.FEATURES))):
    with open(os.path.join(ROOT, "tests", "size", firmware + ".c")) as handle:
        expect("features of " + firmware, size.named_features(handle.read()), want)
expect("comment does not name a feature",
       size.named_features("/* pl011_restart */ pl011_init(&uart, &config);"), ())
for name, _, needs, links in size.FEATURES:
    expect(name + " not named, clean", size.feature_problems(set(OTHERS), ()), [])
    for symbol in links:
        expect(name + " not named, links " + symbol,
               size.feature_problems(OTHERS | {symbol}, ()), ["links " + symbol])
    expect(name + " named, linked", size.feature_problems(OTHERS | set(needs) | set(links),
                                                           (name,)), [])
    for symbol in needs:
        expect(name + " named, without " + symbol,
               size.feature_problems(OTHERS | set(needs) - {symbol}, (name,)),
               ["missing " + symbol])

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
