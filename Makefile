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
LDLIBS_ALL := $(SAN) $(PKG_LIBS) -lm $(LDFLAGS) $(LDLIBS)

BUILD   ?= build
BIN     ?= tools/bin
TOOLS   := mps-overloads mps-dispatch mps-register mps-verify mps-doctor mps-migrate mps-try mps-run
LIB_DIRS := base edit read check plan run
LIB_SRC := $(sort $(wildcard $(LIB_DIRS:%=tools/lib/%/*.c)))
LIB_HDR := $(sort $(wildcard $(LIB_DIRS:%=tools/lib/%/*.h)))
LIB_OBJ := $(LIB_SRC:tools/lib/%.c=$(BUILD)/lib/%.o)
TOOL_SRC := $(wildcard $(TOOLS:%=tools/src/%.c))
TOOL_BIN := $(TOOL_SRC:tools/src/%.c=$(BIN)/%)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit/%)
# debug drivers the shell tests run (built, never installed)
PROBE_BIN := $(BUILD)/unit/cppscan_probe $(BUILD)/unit/rewrite_probe $(BUILD)/unit/retire_probe \
             $(BUILD)/unit/tol_probe

.PHONY: all tools deps check check-asan check-valgrind \
        demo bench fuzz install install-user uninstall doctor clean

# deps first, then a new make: the pkg-config flags above are read when
# make starts, so on a fresh machine they exist only after tools/deps.sh
all:
	@sh tools/deps.sh --quiet
	@$(MAKE) --no-print-directory tools
tools: $(TOOL_BIN) $(BIN)/mps-run.d/STAMP

# mps-run's prebuilt runtime object and precompiled header, for the
# compiler mps-run finds by default ($CXX, c++, clang++, g++): every
# compile_shader then compiles only its own unit.  mps-run uses them
# only while their STAMP names its compiler and host layer and is newer
# than every file of the layer (tools/lib/run/run.h, run_prebuilt_valid).
# A failed prebuild is not a failed build: mps-run works without it.
$(BIN)/mps-run.d/STAMP: $(BIN)/mps-run $(wildcard tools/metal-host/*)
	@$(BIN)/mps-run --internal-prebuild $(BIN)/mps-run.d || \
	  echo "mps-run: note: nothing prebuilt (each compile_shader compiles the runtime too)" >&2

# Checks the libraries; installs them (apt-get as root, Homebrew) or prints
# the one command to run.
deps:
	@sh tools/deps.sh

$(BUILD)/lib/%.o: tools/lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

# every tool carries "@(#)metal-kernel VERSION sources ID" (cli.h mk_ident),
# ID a checksum of the C sources, so that mps-doctor can tell which
# sources an installed copy of a tool was built from without running it
# (every list sorted: the same sources give the same ID on any machine)
MK_SOURCE_ID := $(shell cat $(LIB_SRC) $(sort $(LIB_HDR)) $(sort $(wildcard tools/src/*.c)) | cksum | cut -d' ' -f1)
$(BUILD)/lib/base/cli.o: tools/lib/base/cli.c $(LIB_SRC) $(LIB_HDR) $(wildcard tools/src/*.c)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -DMK_SOURCE_ID='"$(MK_SOURCE_ID)"' -c -o $@ $<

# mps-doctor reports the library versions the tools were compiled
# against; libyaml's header has no version macro, so pkg-config's is used
MK_YAML_BUILT := $(shell pkg-config --modversion yaml-0.1 2>/dev/null)
$(BUILD)/lib/base/buildinfo.o: tools/lib/base/buildinfo.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -DMK_YAML_BUILT='"$(MK_YAML_BUILT)"' -c -o $@ $<

$(BUILD)/libmk.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(BIN)/%: tools/src/%.c $(BUILD)/libmk.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libmk.a $(LDLIBS_ALL)

$(BUILD)/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/libmk.a
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
# The sanitizer build is removed afterwards, pass or fail, so that a plain
# `make` never links its objects.
check-asan:
	$(MAKE) clean
	$(MAKE) check CC=clang OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"; \
	  rc=$$?; $(MAKE) clean; exit $$rc

# Every CLI golden case with each tool under valgrind memcheck.
check-valgrind: all
	@sh tests/hardening/valgrind.sh

demo: all
	@sh tools/deps.sh --quiet --try
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

# The setup record (issue #15): installs of the skill, permissions, the
# tree, the libraries.  `make doctor PYTORCH=DIR` for a checkout;
# DOCTOR_ARGS="--save FILE" or "--check FILE" to keep or compare a record.
doctor: all
	@$(BIN)/mps-doctor $(if $(PYTORCH),--root "$(PYTORCH)") $(DOCTOR_ARGS)

clean:
	rm -rf $(BUILD) $(BIN) tests/out
