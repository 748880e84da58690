# metal-kernel — build, test, demo, install.
# Portable C11 + POSIX; libraries through pkg-config.

CC      ?= cc
PKGS    := yaml-0.1 libpcre2-8 zlib jansson
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN    := -Wall -Wextra -Werror
OPT     ?= -O2 -g
SAN     ?=
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS_ALL := $(CSTD) $(WARN) $(OPT) $(SAN) -Itools/lib $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL := $(SAN) $(PKG_LIBS) -lpthread $(LDFLAGS) $(LDLIBS)

BUILD   ?= build
BIN     ?= tools/bin
TOOLS   := mps-overloads mps-dispatch mps-register mps-verify
LIB_SRC := $(sort $(wildcard tools/lib/*.c))
LIB_OBJ := $(LIB_SRC:tools/lib/%.c=$(BUILD)/lib/%.o)
TOOL_SRC := $(wildcard $(TOOLS:%=tools/src/%.c))
TOOL_BIN := $(TOOL_SRC:tools/src/%.c=$(BIN)/%)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit/%)
# debug drivers the shell tests run (built, never installed)
PROBE_BIN := $(BUILD)/unit/cppscan_probe

.PHONY: all deps check check-asan check-valgrind \
        demo bench fuzz install install-user uninstall clean

all: deps-quiet $(TOOL_BIN)

# Checks the libraries; installs them (apt-get as root, Homebrew) or prints
# the one command to run.
deps:
	@sh tools/deps.sh
deps-quiet:
	@sh tools/deps.sh --quiet

$(BUILD)/lib/%.o: tools/lib/%.c $(wildcard tools/lib/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

# the cache (tools/lib/cache.h) keys stored models by the library's sources
MK_BUILD_ID := $(shell cat $(LIB_SRC) $(wildcard tools/lib/*.h) | cksum | cut -d' ' -f1)
$(BUILD)/lib/cache.o: tools/lib/cache.c $(LIB_SRC) $(wildcard tools/lib/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -DMK_BUILD_ID='"$(MK_BUILD_ID)"' -c -o $@ $<

$(BUILD)/libmk.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(BIN)/%: tools/src/%.c $(BUILD)/libmk.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libmk.a $(LDLIBS_ALL)

$(BUILD)/unit/%: tests/unit/%.c $(BUILD)/libmk.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(shell pkg-config --cflags cmocka 2>/dev/null) -o $@ $< \
	  $(BUILD)/libmk.a $(LDLIBS_ALL) $(shell pkg-config --libs cmocka 2>/dev/null)

# The whole suite: unit (cmocka), CLI golden tests, real trees, skill checks.
# Ends with one line "N passed, N failed, N skipped".
check: all
	@sh tools/deps.sh --quiet --tests
	@$(MAKE) --no-print-directory $(UNIT_BIN) $(PROBE_BIN)
	@sh tests/run-all.sh

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer (clang).
check-asan:
	$(MAKE) clean
	$(MAKE) check CC=clang OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
	$(MAKE) clean

# Every CLI golden case with each tool under valgrind memcheck.
check-valgrind: all
	@sh tests/hardening/valgrind.sh

demo: all
	@sh examples/run-demo.sh

bench: all
	@sh tests/bench/run.sh

fuzz:
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

PYTORCH ?=
install: all
	@sh tools/install.sh project "$(PYTORCH)"
install-user: all
	@sh tools/install.sh user
uninstall:
	@sh tools/install.sh uninstall "$(PYTORCH)"

clean:
	rm -rf $(BUILD) $(BIN) tests/out
