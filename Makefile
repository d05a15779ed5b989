# fluxocs: scheduling optical circuit switches for LLM training.
# make            build the tools (installs missing Debian packages first)
# make check      build, then run every test, also under ASan and UBSan
# make demo       run the main experiment
# make install    PREFIX, DESTDIR and MANPREFIX are honoured

PREFIX ?=	/usr/local
MANPREFIX ?=	$(PREFIX)/share/man
CC ?=		cc
CFLAGS ?=	-O2 -g
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
LIBS =		$(MSGPACK_LIBS) $(LPSOLVE_LIBS) $(CBC_LIBS) -lm

ASAN_FLAGS =	-O1 -g -fsanitize=address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer

TOOLS =		tracegen dagbuild fluxsolve rotorsched ocssim report
# report(1) is built from more than one file: tools/report_*.c.
REPORT_PARTS =	report_runs report_plot report_gantt
LIBSRC =	$(wildcard lib/*.c)
UNITSRC =	$(wildcard tests/unit/test_*.c)

# Debian packages the build and the tests need.
PKGS =		gcc make pkg-config libmsgpack-dev liblpsolve55-dev \
		coinor-libcbc-dev lp-solve coinor-cbc bats bats-assert \
		bats-support gnuplot-nox libxml2-utils groff-base bsdutils \
		perl jq file

B =		build
BINS =		$(TOOLS:%=$(B)/bin/%)
ABINS =		$(TOOLS:%=$(B)/asan/bin/%)
UNITS =		$(UNITSRC:tests/unit/%.c=$(B)/asan/unit/%)

all: deps
	@$(MAKE) --no-print-directory tools

tools: $(BINS)

# Install whatever Debian package is missing: as root, through sudo, or
# stop with the command to type.
deps:
	@missing=; for p in $(PKGS); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
	    grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	echo "installing missing packages:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif sudo -n true 2>/dev/null; then sudo=sudo; \
	else echo "make: run as root or with sudo:" \
	  "apt-get install$$missing" >&2; exit 1; fi; \
	$$sudo apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
	  --no-install-recommends $$missing

# V=1 shows the commands.
Q =		$(if $(V),,@)
say =		$(if $(V),,@echo "  $(1) $@";)

$(B)/obj/%.o: lib/%.c lib/*.h
	@mkdir -p $(@D)
	$(call say,CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/obj/tools/%.o: tools/%.c lib/*.h tools/*.h
	@mkdir -p $(@D)
	$(call say,CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/libfluxocs.a: $(LIBSRC:lib/%.c=$(B)/obj/%.o)
	$(Q)rm -f $@
	$(call say,AR)ar rcs $@ $^

$(B)/bin/%: $(B)/obj/tools/%.o $(B)/libfluxocs.a
	@mkdir -p $(@D)
	$(call say,LD)$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(B)/bin/report: $(B)/obj/tools/report.o \
    $(REPORT_PARTS:%=$(B)/obj/tools/%.o) $(B)/libfluxocs.a
	@mkdir -p $(@D)
	$(call say,LD)$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

# The sanitizer build: same sources, its own objects.
$(B)/asan/obj/%.o: lib/%.c lib/*.h
	@mkdir -p $(@D)
	$(call say,CC)$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -c -o $@ $<

$(B)/asan/obj/tools/%.o: tools/%.c lib/*.h tools/*.h
	@mkdir -p $(@D)
	$(call say,CC)$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -c -o $@ $<

$(B)/asan/libfluxocs.a: $(LIBSRC:lib/%.c=$(B)/asan/obj/%.o)
	$(Q)rm -f $@
	$(call say,AR)ar rcs $@ $^

$(B)/asan/bin/%: $(B)/asan/obj/tools/%.o $(B)/asan/libfluxocs.a
	@mkdir -p $(@D)
	$(call say,LD)$(CC) $(ASAN_FLAGS) -o $@ $^ $(LIBS)

$(B)/asan/bin/report: $(B)/asan/obj/tools/report.o \
    $(REPORT_PARTS:%=$(B)/asan/obj/tools/%.o) $(B)/asan/libfluxocs.a
	@mkdir -p $(@D)
	$(call say,LD)$(CC) $(ASAN_FLAGS) -o $@ $^ $(LIBS)

$(B)/asan/unit/%: tests/unit/%.c tests/unit/tap.h $(B)/asan/libfluxocs.a
	@mkdir -p $(@D)
	$(call say,CC)$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -Itests/unit -o $@ $< \
	    $(B)/asan/libfluxocs.a $(LIBS)

$(B)/asan/helpers/%: tests/helpers/%.c
	@mkdir -p $(@D)
	$(call say,CC)$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -o $@ $< $(LIBS)

HELPERS =	$(B)/asan/helpers/jsonpack $(B)/asan/helpers/fluxenum

asan: $(ABINS) $(UNITS) $(HELPERS)

check: deps
	@$(MAKE) --no-print-directory tools asan
	@tests/run

# Regenerate the sample streams in traces/ from the tools.
traces: tools
	@pipelines/make-traces $(B)/bin

# The Flux study (pipelines/study): its runs side by side, one per
# processor, then the table, the plots and the timelines.
demo: all
	@pipelines/study

# The README's figures, from the study's last run.
FIGURES =	study-iteration.png study-buffer.png timeline-flux.svg \
		timeline-rotor-direct.svg
figures:
	@test -f results/study/timeline-flux.svg || $(MAKE) demo
	@mkdir -p pipelines/figures
	cp $(FIGURES:%=results/study/%) pipelines/figures/

# The benchmarks of the simulator and of fluxsolve.
bench: all
	@pipelines/bench-ocssim

bench-flux: all
	@pipelines/bench-fluxsolve

bench-greedy: all
	@pipelines/bench-greedy

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

.PHONY: all tools deps asan check traces demo figures bench bench-flux \
	bench-greedy \
	install uninstall clean
.SECONDARY:
