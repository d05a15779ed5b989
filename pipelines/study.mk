# The runs of the Flux study as make targets, so that make -j runs them
# side by side.  pipelines/study drives it; to run it by hand:
#	make -f pipelines/study.mk -j2 BIN=build/bin OUT=results/study
# Every run is a plain pipeline of the tools whose output stream is
# saved as $(OUT)/l<layers>-tau<tau>-<scheduler>.msgpack; the DAG each
# run starts from is $(OUT)/l<layers>-tau<tau>.dag.msgpack.  A stream
# is written under a temporary name, renamed when whole and removed when
# its run fails or is interrupted, so an interrupted study resumes where
# it stopped; a stream is made again when a tool it comes from is
# rebuilt, not when the options change (remove the folder for that).  ocssim -t keeps the task times, for
# report -g.

BIN ?=		build/bin
OUT ?=		results/study
LAYERS ?=	8 16
TAUS ?=		1us 10us 100us 1ms
SCHEDULERS ?=	ideal flux rotor-direct rotor-placed rotor-vlb rotor-rotorlb \
		bvn solstice eclipse rotor-direct-circuit bvn-circuit
# rotor-placed: RotorNet direct at the best placement of the ranks on its
# ports that a search of PLACE_EVALS simulations finds (rotorsched -p).
PLACE_EVALS ?=	200
TP ?=		4
DP ?=		2
FLUXSOLVE_ARGS ?=	-T 60

SHELL =		/bin/bash
.SHELLFLAGS =	-o pipefail -ec

# TRACE=path/prefix: an imported Chakra trace (chakra(1); its groups
# in TRACE_GROUPS, a JSON file, if any) instead of tracegen's workloads;
# its cases are named after the prefix's last part, one per tau.
TRACE ?=
TRACE_GROUPS ?=
ifeq ($(TRACE),)
CASES :=	$(foreach l,$(LAYERS),$(foreach t,$(TAUS),l$(l)-tau$(t)))
DAGS :=
else
CASES :=	$(foreach t,$(TAUS),$(notdir $(TRACE))-tau$(t))
DAGS :=		$(CASES:%=$(OUT)/%.dag.msgpack)
endif
RUNS :=		$(foreach c,$(CASES),$(SCHEDULERS:%=$(OUT)/$(c)-%.msgpack))
NRUNS :=	$(words $(RUNS))

all: $(RUNS)

# say NAME: one line of progress on stderr.
say =		n=$$( (ls $(RUNS) 2>/dev/null || true) | wc -l); \
		echo "study: [$$n/$(NRUNS)] $(1)" >&2

# tmp: the recipe's $@.tmp goes however its shell ends: on a failure
# (-e), or on a signal, which make sends the whole job on an interrupt
# (make itself only deletes $@, never written before the rename).
tmp =		trap 'rm -f $@.tmp' EXIT; trap 'exit 130' INT TERM HUP

# l8-tau100us: 8 layers, tau 100us.
layers =	$(patsubst l%,%,$(word 1,$(subst -tau, ,$(1))))
tau =		$(word 2,$(subst -tau, ,$(1)))

ifeq ($(TRACE),)
$(CASES:%=$(OUT)/%.dag.msgpack): $(OUT)/%.dag.msgpack: $(BIN)/tracegen \
    $(BIN)/dagbuild
	@mkdir -p $(OUT)
	@$(tmp); $(BIN)/tracegen -l $(call layers,$*) -t $(TP) -d $(DP) | \
	    $(BIN)/dagbuild -r $(call tau,$*) > $@.tmp; \
	    mv $@.tmp $@
else
$(DAGS): $(OUT)/%.dag.msgpack: $(BIN)/chakra $(BIN)/dagbuild
	@mkdir -p $(OUT)
	@$(tmp); $(BIN)/chakra $(if $(TRACE_GROUPS),-g $(TRACE_GROUPS)) \
	    $(TRACE) | $(BIN)/dagbuild -r $(call tau,$*) > $@.tmp; \
	    mv $@.tmp $@
endif

$(filter %-ideal.msgpack,$(RUNS)): %-ideal.msgpack: %.dag.msgpack $(BIN)/ocssim
	@$(tmp); $(BIN)/ocssim -f ideal -t < $< > $@.tmp; \
	    mv $@.tmp $@; $(call say,$(@F))

$(filter %-flux.msgpack,$(RUNS)): %-flux.msgpack: %.dag.msgpack \
    $(BIN)/fluxsolve $(BIN)/ocssim
	@$(tmp); $(BIN)/fluxsolve $(FLUXSOLVE_ARGS) < $< | \
	    $(BIN)/ocssim -t > $@.tmp; \
	    mv $@.tmp $@; $(call say,$(@F))

# periodic NAME, ROTORSCHED ARGS, OCSSIM ARGS: the rule of one periodic
# scheduler's runs.
define periodic
$$(filter %-$(1).msgpack,$$(RUNS)): %-$(1).msgpack: %.dag.msgpack \
    $$(BIN)/rotorsched $$(BIN)/ocssim
	@$$(tmp); $$(BIN)/rotorsched $(2) < $$< | \
	    $$(BIN)/ocssim -t $(3) > $$@.tmp; \
	    mv $$@.tmp $$@; $$(call say,$$(@F))
endef

$(eval $(call periodic,rotor-direct,-m rotor -f direct,))
$(eval $(call periodic,rotor-placed,-m rotor -f direct -p best \
    --place-evals=$(PLACE_EVALS),))
$(eval $(call periodic,rotor-vlb,-m rotor -f vlb,))
$(eval $(call periodic,rotor-rotorlb,-m rotor -f rotorlb,))
$(eval $(call periodic,bvn,-m bvn,))
$(eval $(call periodic,solstice,-m solstice,))
$(eval $(call periodic,eclipse,-m eclipse,))
# The hosts of these know when every circuit is up (ocssim -H circuit):
# they keep bytes in GPU memory until their circuit is.
$(eval $(call periodic,rotor-direct-circuit,-m rotor -f direct,-H circuit))
$(eval $(call periodic,bvn-circuit,-m bvn,-H circuit))

# The runs in table order, for pipelines/study.
list:
	@printf '%s\n' $(RUNS)

.PHONY: all list
.DELETE_ON_ERROR:
