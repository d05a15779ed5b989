# fluxocs: scheduling optical circuit switches for LLM training.
# make            build the tools (installs missing Debian packages first)
# make check      build, then run every test, also under ASan and UBSan,
#                 with gcc and with clang, and replay the fuzz corpora
# make fuzz       run each libFuzzer target FUZZ_SECONDS (60) seconds
# make coverage   the gcc suites on a gcov build, then the lines and
#                 branches of lib/ and tools/ that they run
# make demo       run the main experiment
# make install    PREFIX, DESTDIR and MANPREFIX are honoured

PREFIX ?=	/usr/local
MANPREFIX ?=	$(PREFIX)/share/man
CC ?=		cc
CFLAGS ?=	-O2 -g
# The tools themselves (not the sanitizer, fuzz or coverage builds) are
# optimized across files at link time: the simulator's small helpers in
# other files (heap, buffers, fabrics) are then inlined into its loop.
LTO ?=		-flto=auto
WARN =		-std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
		-Wmissing-prototypes -Wpointer-arith
DEFS =		-D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L

# Evaluated lazily: the packages may be installed by the deps target.
MSGPACK_CFLAGS = $(shell pkg-config --cflags msgpack 2>/dev/null || \
		   pkg-config --cflags msgpack-c 2>/dev/null)
MSGPACK_LIBS =	$(shell pkg-config --libs msgpack 2>/dev/null || \
		   pkg-config --libs msgpack-c 2>/dev/null || echo -lmsgpackc)
LPSOLVE_CFLAGS = -I/usr/include/lpsolve
LPSOLVE_LIBS =	-llpsolve55 -lcolamd -ldl
CBC_CFLAGS =	$(shell pkg-config --cflags cbc 2>/dev/null)
CBC_LIBS =	$(shell pkg-config --libs cbc 2>/dev/null)

ALL_CFLAGS =	$(WARN) $(DEFS) -Ilib $(MSGPACK_CFLAGS) $(LPSOLVE_CFLAGS) \
		$(CBC_CFLAGS) $(CFLAGS)
LIBS =		-Wl,--as-needed $(MSGPACK_LIBS) $(LPSOLVE_LIBS) $(CBC_LIBS) -lm

ASAN_FLAGS =	-O1 -g -fsanitize=address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer
# The second sanitizer build, and the fuzz targets, use clang: its
# ASan and UBSan find what gcc's miss (and libFuzzer is clang's).
CLANG =		clang

TOOLS =		tracegen dagbuild fluxsolve rotorsched ocssim report chakra
# lib/ is layered (lib/README.md): records, model, solve, sim.  Each
# tool is built from tools/TOOL/*.c: its main and its private parts.
LIBSRC =	$(wildcard lib/*/*.c)
LIBHDR =	$(wildcard lib/*/*.h)
TOOLHDR =	$(wildcard tools/*/*.h)
# $(call tool_objs,BUILD,TOOL): the objects of one tool in one build
tool_objs =	$(patsubst %.c,$(1)/obj/%.o,$(wildcard tools/$(2)/*.c))

# $(call build_rules,BUILD,COMPILER,COMPILE FLAGS,LINK FLAGS): the
# objects, the library and the tools of one build ($(B), $(B)/asan,
# $(B)/clang); each build has its own objects.  The last three are
# names of variables (the flags hold commas, which $(call) would split).
define build_rules
$(1)/obj/%.o: lib/%.c $$(LIBHDR)
	@mkdir -p $$(@D)
	$$(call say,CC)$$($(2)) $$(ALL_CFLAGS) $$($(3)) -c -o $$@ $$<

$(1)/obj/tools/%.o: tools/%.c $$(LIBHDR) $$(TOOLHDR)
	@mkdir -p $$(@D)
	$$(call say,CC)$$($(2)) $$(ALL_CFLAGS) $$($(3)) -c -o $$@ $$<

# The commit is compiled into this one object (lib/records/cli.h).
$(1)/obj/records/version.o: $(B)/commit
$(1)/obj/records/version.o: ALL_CFLAGS += -DFLUXOCS_COMMIT='"$$(COMMIT)"'

$(1)/libfluxocs.a: $$(LIBSRC:lib/%.c=$(1)/obj/%.o)
	$$(Q)rm -f $$@
	$$(call say,AR)ar rcs $$@ $$^

$$(foreach t,$$(TOOLS),$$(eval $$(call tool_link,$(1),$(2),$(4),$$(t))))
endef

# $(call tool_link,BUILD,LINKER,LINK FLAGS,TOOL): the last three names
define tool_link
$(1)/bin/$(4): $(call tool_objs,$(1),$(4)) $(1)/libfluxocs.a
	@mkdir -p $$(@D)
	$$(call say,LD)$$($(2)) $$($(3)) -o $$@ $$^ $$(LIBS)
endef
UNITSRC =	$(wildcard tests/unit/test_*.c)

# Debian packages, by what needs them; each target installs only its
# own (make deps-list shows them and which are missing).
# Building the tools:
BUILD_PKGS =	gcc make pkg-config libmsgpack-dev liblpsolve55-dev \
		coinor-libcbc-dev
# make demo: report --plot draws with gnuplot.
DEMO_PKGS =	gnuplot-nox
# make scale-study and make regime-study: their tables read report's
# JSON with jq.
STUDY_PKGS =	gnuplot-nox jq
# The benchmarks (make bench*): jq reads records, GNU parallel runs
# the stages side by side.
BENCH_PKGS =	jq parallel
# make fuzz: libFuzzer is clang's.
FUZZ_PKGS =	clang libclang-rt-14-dev
# make check: the suites, the clang sanitizer build and the fuzz
# replays, the solvers' own commands, the man page lint, and the
# sweep over ssh (an sshd of the test's own: Debian's service is kept
# from ever starting, see pkg_install).
TEST_PKGS =	$(DEMO_PKGS) $(FUZZ_PKGS) lp-solve coinor-cbc bats \
		bats-assert bats-support libxml2-utils groff-base bsdutils \
		perl jq file python3 protobuf-compiler openssh-server \
		openssh-client parallel rsync valgrind

# $(call pkg_install,PURPOSE,PACKAGES): install whichever of PACKAGES
# is missing, saying which and why first: as root, through sudo, or
# stop with the command to type.  openssh-server is installed with
# /etc/ssh/sshd_not_to_be_run in place, which Debian's ssh service
# (systemd unit and init script) honours: its sshd never starts as a
# service, now or at boot; the tests start their own.
define pkg_install
	@command -v dpkg-query >/dev/null || { \
	  echo "make: no dpkg-query: not Debian; $(1) needs: $(2)"; exit 0; }; \
	missing=; for p in $(2); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
	    grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	echo "make: $(1): installing the missing Debian packages:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif sudo -n true 2>/dev/null; then sudo=sudo; \
	else echo "make: run as root or with sudo:" \
	  "apt-get install --no-install-recommends$$missing" >&2; exit 1; fi; \
	case " $$missing " in *" openssh-server "*) \
	  [ -e /etc/ssh/sshd_not_to_be_run ] || \
	    $$sudo sh -c 'mkdir -p /etc/ssh && \
	      echo "fluxocs: make check runs its own sshd" \
	      > /etc/ssh/sshd_not_to_be_run' || exit 1 ;; \
	esac; \
	$$sudo apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
	  --no-install-recommends $$missing
endef

B =		build
# The commit the build comes from, for --version (lib/records/cli.h):
# $(B)/commit is rewritten only when it changes, and version.o, which
# alone depends on it, is then compiled again.
COMMIT :=	$(shell git describe --always --dirty --abbrev=12 2>/dev/null \
		  || echo unknown)
$(shell mkdir -p $(B) && { echo '$(COMMIT)' | cmp -s - $(B)/commit || \
	  echo '$(COMMIT)' > $(B)/commit; })
BINS =		$(TOOLS:%=$(B)/bin/%)
ABINS =		$(TOOLS:%=$(B)/asan/bin/%)
UNITS =		$(UNITSRC:tests/unit/%.c=$(B)/asan/unit/%)
CBINS =		$(TOOLS:%=$(B)/clang/bin/%)
CUNITS =	$(UNITSRC:tests/unit/%.c=$(B)/clang/unit/%)

all: deps-build
	@$(MAKE) --no-print-directory tools

tools: $(BINS)

deps-build:
	$(call pkg_install,building the tools,$(BUILD_PKGS))
deps-demo: deps-build
	$(call pkg_install,the demo,$(DEMO_PKGS))
deps-study: deps-build
	$(call pkg_install,the scale study,$(STUDY_PKGS))
deps-bench: deps-build
	$(call pkg_install,the benchmarks,$(BENCH_PKGS))
deps-fuzz: deps-build
	$(call pkg_install,fuzzing,$(FUZZ_PKGS))
deps-test: deps-build
	$(call pkg_install,the tests,$(TEST_PKGS))
# Everything any target needs.
deps: deps-build deps-demo deps-study deps-bench deps-test

# What each target needs and which of it is missing; installs nothing.
deps-list:
	@for l in "make (the tools):$(BUILD_PKGS)" \
	    "make demo, in addition:$(DEMO_PKGS)" \
	    "make scale-study and regime-study, in addition:$(STUDY_PKGS)" \
	    "make bench*, in addition:$(BENCH_PKGS)" \
	    "make fuzz, in addition:$(FUZZ_PKGS)" \
	    "make check and make coverage, in addition:$(TEST_PKGS)"; do \
	  echo "$${l%%:*}:"; \
	  for p in $${l#*:}; do \
	    if dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
	        grep -q '^install ok installed'; then s=installed; \
	    else s=missing; fi; \
	    printf '  %-24s %s\n' $$p $$s; \
	  done; \
	done

# V=1 shows the commands.
Q =		$(if $(V),,@)
say =		$(if $(V),,@echo "  $(1) $@";)

LINK_FLAGS =	$(CFLAGS) $(LTO)
$(eval $(call build_rules,$(B),CC,LTO,LINK_FLAGS))

# The sanitizer build: same sources, its own objects.
$(eval $(call build_rules,$(B)/asan,CC,ASAN_FLAGS,ASAN_FLAGS))

$(B)/asan/unit/%: tests/unit/%.c tests/unit/*.h $(LIBHDR) \
    $(B)/asan/libfluxocs.a
	@mkdir -p $(@D)
	$(call say,CC)$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -Itests/unit -o $@ $< \
	    $(B)/asan/libfluxocs.a $(LIBS)

# recget is the tests' reader of results, run thousands of times: built
# without the sanitizers, it starts in some 4 ms, not 16.
$(B)/asan/helpers/recget: tests/helpers/recget.c tests/helpers/recscan.h
	@mkdir -p $(@D)
	$(call say,CC)$(CC) $(ALL_CFLAGS) -O2 -o $@ $< $(LIBS)

$(B)/asan/helpers/%: tests/helpers/%.c tests/helpers/*.h $(LIBHDR)
	@mkdir -p $(@D)
	$(call say,CC)$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -o $@ $< $(LIBS)

HELPERS =	$(B)/asan/helpers/jsonpack $(B)/asan/helpers/fluxenum \
		$(B)/asan/helpers/fabenum \
		$(B)/asan/helpers/idealsim $(B)/asan/helpers/pbsplit \
		$(B)/asan/helpers/recget

asan: $(ABINS) $(UNITS) $(HELPERS)

# The clang sanitizer build: the same flags, its own objects.
$(eval $(call build_rules,$(B)/clang,CLANG,ASAN_FLAGS,ASAN_FLAGS))

$(B)/clang/unit/%: tests/unit/%.c tests/unit/*.h $(LIBHDR) \
    $(B)/clang/libfluxocs.a
	@mkdir -p $(@D)
	$(call say,CLANG)$(CLANG) $(ALL_CFLAGS) $(ASAN_FLAGS) -Itests/unit \
	    -o $@ $< $(B)/clang/libfluxocs.a $(LIBS)

clang: $(CBINS) $(CUNITS)

# libFuzzer targets, tests/fuzz/fuzz_NAME.c, on the library built
# with coverage for the fuzzer.  Each target's corpus, build/fuzz/
# corpus/NAME, starts from the streams in tests/data and traces and
# the seeds in tests/fuzz/seeds/NAME; what fuzzing adds stays there.
# Crashes go to tests/fuzz/crashes/NAME, to be committed: make check
# replays them and the corpus (tests/run).
FUZZ_TARGETS =	stream ops tasks sched pb chakra rows fabric planes
FUZZ_SECONDS =	60
FUZZ_BINS =	$(FUZZ_TARGETS:%=$(B)/fuzz/bin/fuzz_%)
FUZZ_FLAGS =	$(ASAN_FLAGS) -fsanitize=fuzzer-no-link
FUZZ_SEEDS =	$(wildcard tests/data/*.msgpack traces/*.msgpack)

$(B)/fuzz/obj/%.o: lib/%.c $(LIBHDR)
	@mkdir -p $(@D)
	$(call say,CLANG)$(CLANG) $(ALL_CFLAGS) $(FUZZ_FLAGS) -c -o $@ $<

$(B)/fuzz/libfluxocs.a: $(LIBSRC:lib/%.c=$(B)/fuzz/obj/%.o)
	$(Q)rm -f $@
	$(call say,AR)ar rcs $@ $^

$(B)/fuzz/obj/tools/%.o: tools/%.c $(LIBHDR) $(TOOLHDR)
	@mkdir -p $(@D)
	$(call say,CLANG)$(CLANG) $(ALL_CFLAGS) $(FUZZ_FLAGS) -c -o $@ $<

$(B)/fuzz/bin/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/*.h tests/unit/*.h \
    $(LIBHDR) $(TOOLHDR) $(wildcard tools/*/*.c) $(B)/fuzz/libfluxocs.a
	@mkdir -p $(@D)
	$(call say,CLANG)$(CLANG) $(ALL_CFLAGS) $(ASAN_FLAGS) \
	    -fsanitize=fuzzer -Itests/fuzz -o $@ $< \
	    $(filter $(B)/fuzz/obj/tools/%.o,$^) $(B)/fuzz/libfluxocs.a \
	    $(LIBS)

# fuzz_chakra includes chakra.c and chakra_et.c; the exporter half,
# which it does not run, is linked as the tool has it.
$(B)/fuzz/bin/fuzz_chakra: $(B)/fuzz/obj/tools/chakra/chakra_out.o

# fuzz_ops includes dagbuild.c, whose --fabric part is linked as it is.
$(B)/fuzz/bin/fuzz_ops: $(B)/fuzz/obj/tools/dagbuild/dagbuild_fabric.o

# fuzz_rows reads report's CSV and JSON back (tools/report); its
# seeds are report's own output of the golden runs (tests/data/report.*).
$(B)/fuzz/bin/fuzz_rows: $(B)/fuzz/obj/tools/report/report_rows.o \
    $(B)/fuzz/obj/tools/report/report_run.o

# The hand-made seeds are JSON lines, packed here by jsonpack, or
# bytes as printf(1) octal escapes (NAME.oct: protobuf frames).
fuzz-corpus: $(B)/asan/helpers/jsonpack $(B)/bin/dagbuild
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(B)/fuzz/corpus/$$t tests/fuzz/crashes/$$t && \
	  cp $(FUZZ_SEEDS) $(B)/fuzz/corpus/$$t/ || exit 1; \
	  for e in tests/fuzz/seeds/$$t/*.oct; do \
	    [ -f "$$e" ] || continue; \
	    printf "$$(cat $$e)" \
	      >$(B)/fuzz/corpus/$$t/seed-$$(basename $$e .oct) || exit 1; \
	  done; \
	  for j in tests/fuzz/seeds/$$t/*.jsonl; do \
	    [ -f "$$j" ] || continue; \
	    $(B)/asan/helpers/jsonpack <$$j \
	      >$(B)/fuzz/corpus/$$t/seed-$$(basename $$j .jsonl) || exit 1; \
	  done; \
	done
	@case " $(FUZZ_TARGETS) " in *" rows "*) \
	  cp tests/data/report.csv tests/data/report.json \
	    $(B)/fuzz/corpus/rows/ ;; \
	esac
	@case " $(FUZZ_TARGETS) " in *" fabric "*) \
	  for p in $$($(B)/bin/dagbuild --fabric=list | awk '/^[a-z]/ { print $$1 }'); do \
	    $(B)/bin/dagbuild --fabric=list | awk -v p=$$p \
	      '/^[a-z]/ { on = $$1 == p; next } on { sub(/^ +/, ""); print }' \
	      > $(B)/fuzz/corpus/fabric/seed-$$p || exit 1; \
	  done ;; \
	esac

fuzz-build: $(FUZZ_BINS) fuzz-corpus

# Each target for FUZZ_SECONDS, one after the other; a crash stops
# that target only (FUZZ_ARGS='-fork=1 -ignore_crashes=1' goes on past
# crashes).  The summary of each run is its last lines.
FUZZ_ARGS =
FUZZ_MAXLEN =	16384

fuzz: deps-fuzz
	@$(MAKE) --no-print-directory fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  nice $(B)/fuzz/bin/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
	    -max_len=$(FUZZ_MAXLEN) -timeout=10 -print_final_stats=1 \
	    $(FUZZ_ARGS) \
	    -artifact_prefix=tests/fuzz/crashes/$$t/ \
	    $(B)/fuzz/corpus/$$t >$(B)/fuzz/$$t.log 2>&1; \
	  echo "fuzz: $$t exited $$?"; tail -n 14 $(B)/fuzz/$$t.log; \
	done

# The four builds two at a time: make check has 15 minutes on 2 cores.
check: deps-test
	@$(MAKE) --no-print-directory -j2 tools asan clang fuzz-build
	@tests/run

# Regenerate the sample streams in traces/ from the tools.
# The coverage build: the asan targets with gcov instead of the
# sanitizers, in build/cov; die() writes the counts before _exit.
# Every suite runs on it (the helpers and release tools from the main
# build); tests/coverage then sums what lib/ and tools/ ran.
COV_FLAGS =	-O0 -g --coverage -DFLUXOCS_COVERAGE

coverage: deps-test
	@$(MAKE) --no-print-directory -j2 tools $(HELPERS)
	@$(MAKE) --no-print-directory -j2 B=$(B)/cov \
	    ASAN_FLAGS="$(COV_FLAGS)" asan
	find $(B)/cov/asan/obj -name '*.gcda' -delete
	FLUXOCS_BIN=$(CURDIR)/$(B)/cov/asan/bin tests/run > $(B)/cov/tests.log; \
	    rc=$$?; tail -n 1 $(B)/cov/tests.log; \
	    tests/coverage $(B)/cov/asan/obj; exit $$rc

traces: tools
	@pipelines/make-traces $(B)/bin

# The Flux study (pipelines/study): its runs side by side, one per
# processor, then the table, the plots and the timelines.
demo: deps-demo
	@$(MAKE) --no-print-directory tools
	@pipelines/study

# The README's figures, from the study's last run, and its regime map:
# 64 GPUs of Llama, NVLink 8, an OCS a rail, every tau and bandwidth of
# pipelines/regime-study (Flux 2 s a run), its runs kept in
# results/regime-map and made again only where settings changed.
FIGURES =	study-iteration.png study-buffer.png study-nic.png timeline-flux.svg \
		timeline-rotor-direct.svg
REGIME_MAP =	SIZES=64 DOMAINS=8 POSITIONS=rail WORKLOADS=dense FLUX_BUDGET=2
figures: deps-study
	@test -f results/study/timeline-flux.svg || $(MAKE) demo
	@$(MAKE) --no-print-directory tools
	$(REGIME_MAP) pipelines/regime-study $(B)/bin results/regime-map > /dev/null
	@mkdir -p pipelines/figures
	cp $(FIGURES:%=results/study/%) pipelines/figures/
	cp results/regime-map/map-N64-dense-d8-rail.png pipelines/figures/regime-map.png

# The benchmarks of the simulator and of fluxsolve, and the
# traffic-matrix schedulers' reconfigurations (bench-tm).
bench: deps-bench
	@$(MAKE) --no-print-directory tools
	@pipelines/bench-ocssim

bench-flux: deps-bench
	@$(MAKE) --no-print-directory tools
	@pipelines/bench-fluxsolve

bench-greedy: deps-bench
	@$(MAKE) --no-print-directory tools
	@pipelines/bench-greedy

bench-limits: deps-bench
	@$(MAKE) --no-print-directory tools
	@pipelines/bench-limits

bench-place: deps-bench
	@$(MAKE) --no-print-directory tools
	@pipelines/bench-place

bench-tm: deps-bench
	@$(MAKE) --no-print-directory tools
	@pipelines/bench-tm

# The scaling study (pipelines/scale-study): 8 to 1024 GPUs; its knobs
# (SIZES, TAUS, SCHEDULERS, FLUX_BUDGET, ...) come from the environment.
scale-study: deps-study
	@$(MAKE) --no-print-directory tools
	@pipelines/scale-study

# The regime study (pipelines/regime-study): when timing circuits pays,
# against static, per-phase, BvN, RotorNet and EPS at equal cost, over
# tau, bandwidth, domain, OCS position and workload; its knobs (SIZES,
# TAUS, BWS, DOMAINS, POSITIONS, WORKLOADS, ...) from the environment.
regime-study: deps-study
	@$(MAKE) --no-print-directory tools
	@pipelines/regime-study

# Each stage of tracegen | dagbuild | fluxsolve -m greedy | ocssim at
# GPUS (1024) GPUs: time, CPU, peak memory and output size.
bench-pipeline: deps-bench
	@$(MAKE) --no-print-directory tools
	@pipelines/bench-pipeline

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANPREFIX)/man1 \
	    $(DESTDIR)$(MANPREFIX)/man5 $(DESTDIR)$(MANPREFIX)/man7
	cp $(BINS) $(DESTDIR)$(PREFIX)/bin/
	cp man/man1/*.1 $(DESTDIR)$(MANPREFIX)/man1/
	cp man/man5/*.5 $(DESTDIR)$(MANPREFIX)/man5/
	cp man/man7/*.7 $(DESTDIR)$(MANPREFIX)/man7/

uninstall:
	cd $(DESTDIR)$(PREFIX)/bin && rm -f $(TOOLS)
	rm -f $(TOOLS:%=$(DESTDIR)$(MANPREFIX)/man1/%.1) \
	    $(DESTDIR)$(MANPREFIX)/man5/fluxocs.5 \
	    $(DESTDIR)$(MANPREFIX)/man7/fluxocs.7

clean:
	rm -rf $(B)

.PHONY: all tools deps deps-build deps-demo deps-study deps-bench deps-fuzz \
	deps-test \
	deps-list asan clang fuzz fuzz-build fuzz-corpus check coverage \
	traces demo figures bench bench-flux bench-greedy bench-limits bench-place \
	bench-tm scale-study regime-study bench-pipeline install uninstall \
	clean
.SECONDARY:
