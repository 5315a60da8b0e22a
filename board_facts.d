board_facts.o: tests/boards/board_facts.h boards/versatilepb/board.h \
 boards/common/board_api.h include/pl011.h include/pl011_ring.h
boards/versatilepb/board.h:
boards/common/board_api.h:
include/pl011.h:
include/pl011_ring.h:
