# Cross build for BOARD: the library, the board's objects, the examples, with header dependencies.

CC := $(CROSS_COMPILE)gcc
AR := $(CROSS_COMPILE)ar
OBJCOPY := $(CROSS_COMPILE)objcopy
SIZE := $(CROSS_COMPILE)size

# The same warnings for target and host code. -fno-common makes a tentative definition in two
# files a link error instead of one silently shared variable.
WARNINGS := -Wall -Wextra -Werror -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes \
	-Wundef -Wcast-align -fno-common
# -MMD -MP: each object gets a .d file listing the headers it included, read back below.
## the optimisation of the library and the examples: -Os for the sizes of docs/size.md
OPT ?= -O2
TARGET_CFLAGS := $(BOARD_CPU_FLAGS) -std=c11 $(OPT) -g $(WARNINGS) -ffunction-sections \
	-fdata-sections -MMD -MP
## 0: the library and the examples without the optional counters (include/pl011_options.h)
PL011_STATS ?=
TARGET_CFLAGS += $(if $(PL011_STATS),-DPL011_STATS=$(PL011_STATS))
# (The examples do not link with it: the boards' console dispatches the UART interrupt.)
## 0: the polled-only library, for make lib (docs/building.md, "Polled only")
PL011_INTERRUPTS ?=
TARGET_CFLAGS += $(if $(PL011_INTERRUPTS),-DPL011_INTERRUPTS=$(PL011_INTERRUPTS))
## 1: the library for a firmware whose driver calls all run on one core (docs/configuration.md)
PL011_SINGLE_CORE ?=
TARGET_CFLAGS += $(if $(PL011_SINGLE_CORE),-DPL011_SINGLE_CORE=$(PL011_SINGLE_CORE))
# -mgeneral-regs-only: the driver runs in interrupt handlers, and an interrupt entry that saves
# only the general registers must not find FP/SIMD ones changed (GCC's -O2 copies through
# q0 on AArch64 otherwise). make analyze checks the object code (tools/check-general-regs.sh).
LIB_CFLAGS := $(TARGET_CFLAGS) -mgeneral-regs-only -ffreestanding -Iinclude -Ilib
BOARD_CFLAGS := -Iinclude -Iboards/$(BOARD) $(BOARD_INCLUDES) -Iboards/common
APP_CFLAGS := $(TARGET_CFLAGS) $(BOARD_CFLAGS)
ASFLAGS := $(BOARD_CPU_FLAGS) $(BOARD_CFLAGS) -MMD -MP
LDFLAGS := $(BOARD_CPU_FLAGS) $(BOARD_LDFLAGS) -Wl,--gc-sections -T $(BOARD_LINKER_SCRIPT)

OUT := $(BUILD)/$(BOARD)
LIB_SRCS := $(wildcard lib/*.c)
# The atomic helpers GCC calls on ARMv5 and ARMv6-M (no LDREX/STREX) go into the library too,
# so that a firmware links with libpl011.a and -lgcc alone; the file is empty on other cores.
LIB_SUPPORT_SRCS := boards/common/atomics_irqmask.c
LIB_OBJS := $(LIB_SRCS:%.c=$(OUT)/%.o) $(LIB_SUPPORT_SRCS:%.c=$(OUT)/lib/%.o)
LIBRARY := $(OUT)/libpl011.a
BOARD_OBJS := $(patsubst %,$(OUT)/%.o,$(BOARD_SRCS) $(BOARD_COMMON_SRCS))
EXAMPLE_ELFS := $(EXAMPLES:%=$(OUT)/examples/%.elf)
TARGET_OBJS = $(LIB_OBJS) $(BOARD_OBJS) $(patsubst %,$(OUT)/%.o,$(wildcard examples/*/*.c))

$(LIBRARY): $(LIB_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The flags are part of every object's inputs: a different BOARD_CPU_FLAGS, CROSS_COMPILE or
# -D (make BOARD_UART_CLOCK_HZ=...) rebuilds, through a file that is rewritten only when they
# change. It is written while make reads the makefiles, so that `make -n` tells the truth.
# $(call flags_file,FILE_VARIABLE,FLAGS_VARIABLE), under $(eval): make the file hold the flags.
define flags_file
ifneq ($$(filter-out $$(NO_BUILD_GOALS),$$(or $$(MAKECMDGOALS),all)),)
ifneq ($$($(2)),$$(file < $$($(1))))
$$(shell mkdir -p $$(dir $$($(1))))
$$(file > $$($(1)),$$($(2)))
endif
endif
endef
FLAGS_FILE := $(OUT)/flags.txt
FLAGS_NOW := $(CC) | $(LIB_CFLAGS) | $(APP_CFLAGS) | $(ASFLAGS) | $(LDFLAGS) $(BOARD_LDLIBS)
$(eval $(call flags_file,FLAGS_FILE,FLAGS_NOW))

# Each .d names its object both as built and as an absolute path, so that a build called with an
# absolute BUILD (the out-of-tree tests) still sees the headers of objects built with a relative
# one, and the other way round.
DEP_TARGETS = -MT $(patsubst $(CURDIR)/%,%,$(abspath $@)) -MT $(abspath $@)

$(OUT)/lib/%.o: lib/%.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(LIB_CFLAGS) $(DEP_TARGETS) -c $< -o $@

$(OUT)/lib/boards/%.o: boards/%.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(LIB_CFLAGS) $(DEP_TARGETS) -c $< -o $@

# Board and example sources: an example's own folder is on its include path.
$(OUT)/%.c.o: %.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(APP_CFLAGS) $(DEP_TARGETS) -I$(<D) -c $< -o $@

$(OUT)/%.S.o: %.S $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	$(Q)$(CC) $(ASFLAGS) $(DEP_TARGETS) -c $< -o $@

# Each example is every .c in its folder, linked with the board, the C library and libpl011.
.SECONDARY:
.SECONDEXPANSION:
# A name with no examples/<name>/ (make run RUN_EXAMPLE=helo) stops before compiling anything,
# with the list, instead of linking nothing into "undefined reference to main".
$(OUT)/examples/%.elf: $$(if $$(wildcard examples/$$*/*.c),,unknown-example-$$*) \
		$$(addprefix $(OUT)/,$$(addsuffix .o,$$(wildcard examples/$$*/*.c))) \
		$(BOARD_OBJS) $(LIBRARY) $(BOARD_LINKER_SCRIPT) $(wildcard linker/*.ld) $(FLAGS_FILE)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) $(filter %.o,$^) $(LIBRARY) $(BOARD_LDLIBS) -o $@

unknown-example-%:
	@echo "make: no example '$*' (examples/$*/ has no .c file); examples: $(EXAMPLES)" >&2; exit 1

# The raw image a boot loader copies to memory (a Raspberry Pi's kernel.img).
$(OUT)/examples/%.img: $(OUT)/examples/%.elf
	@echo "  OBJCOPY $@"
	$(Q)$(OBJCOPY) -O binary $< $@

# docs/size.md's size table: the firmwares of tests/size/ on five targets, -Os with section GC,
# measured in the linked images (tools/size.py; --functions lists every function's bytes).
# Not per BOARD: they build under BUILD/size/ with their own flags.
size:
	$(Q)$(PYTHON) tools/size.py --build $(BUILD)/size
size-readme:
	$(Q)$(PYTHON) tools/size.py --build $(BUILD)/size --write-readme
# For make test: docs/size.md's table is what make size prints, no polled firmware of a 32-bit
# target links a 64-bit division helper (__aeabi_uldivmod, __udivdi3...), and no firmware links
# a TX strategy it does not name or lacks one it names (nm). The rule's own test runs first,
# and the images are checked even when it fails, so that one run shows every problem.
size-check:
	$(Q)status=0; $(PYTHON) tests/tools/check_size_strategies.py || status=1; \
	$(PYTHON) tools/size.py --build $(BUILD)/size --check-readme --check-divisions \
		--check-strategies --check-ram || status=1; exit $$status

-include $(TARGET_OBJS:.o=.d)
