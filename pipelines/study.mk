# The runs of the Flux study as make targets, so that make -j runs them
# side by side.  pipelines/study drives it; to run it by hand:
#	make -f pipelines/study.mk -j2 BIN=build/bin OUT=results/study
# Every run is a plain pipeline of the tools whose output stream is
# saved as $(OUT)/l<layers>-tau<tau>-<scheduler>.msgpack; the DAG each
# run starts from is $(OUT)/l<layers>-tau<tau>.dag.msgpack.  Beside
# each, FILE.cmd holds the whole pipeline that made it, with the
# tools' folder and every setting (TP, DP, FLUXSOLVE_ARGS, PLACE_EVALS,
# TRACE, ...), which the file's name does not all say: a file is made
# again when the pipeline it would be made by now is another, or when
# a tool of it is rebuilt, and says so on stderr (pipelines/cmd.mk).
# A stream is written under a temporary name, renamed when whole and
# removed when its run fails or is interrupted, so an interrupted study
# resumes where it stopped.

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
else
CASES :=	$(foreach t,$(TAUS),$(notdir $(TRACE))-tau$(t))
endif
DAGS :=		$(CASES:%=$(OUT)/%.dag.msgpack)
RUNS :=		$(foreach c,$(CASES),$(SCHEDULERS:%=$(OUT)/$(c)-%.msgpack))
NRUNS :=	$(words $(RUNS))

all: $(RUNS)

# say NAME: one line of progress on stderr: how many runs are made by
# the current settings.
say =		echo "study: [$(call made,$(RUNS))/$(NRUNS)] $(1)" >&2

# l8-tau100us: 8 layers, tau 100us.
layers =	$(patsubst l%,%,$(word 1,$(subst -tau, ,$(1))))
tau =		$(word 2,$(subst -tau, ,$(1)))

# The commands, B for the tools' folder (pipelines/cmd.mk).
# dag CASE: the DAG's, from nothing; DAGIN: the files it reads.
ifeq ($(TRACE),)
dag =		$(B)/tracegen -l $(call layers,$(1)) -t $(TP) -d $(DP) | \
		    $(B)/dagbuild -r $(call tau,$(1))
DAGIN :=
else
dag =		$(B)/chakra $(if $(TRACE_GROUPS),-g $(TRACE_GROUPS)) \
		    $(TRACE) | $(B)/dagbuild -r $(call tau,$(1))
DAGIN :=	$(wildcard $(TRACE).*.et $(TRACE_GROUPS))
endif
# run.SCHEDULER: a run's, from its DAG.  ocssim -t keeps the task
# times, for report -g.
run.ideal =	$(B)/ocssim -f ideal -t
run.flux =	$(B)/fluxsolve $(FLUXSOLVE_ARGS) | $(B)/ocssim -t
run.rotor-direct = $(B)/rotorsched -m rotor -f direct | $(B)/ocssim -t
# rotor-placed: RotorNet direct at the best placement of the ranks on
# its ports that a search of PLACE_EVALS simulations finds.
run.rotor-placed = $(B)/rotorsched -m rotor -f direct -p best \
		    --place-evals=$(PLACE_EVALS) | $(B)/ocssim -t
run.rotor-vlb =	$(B)/rotorsched -m rotor -f vlb | $(B)/ocssim -t
run.rotor-rotorlb = $(B)/rotorsched -m rotor -f rotorlb | $(B)/ocssim -t
run.bvn =	$(B)/rotorsched -m bvn | $(B)/ocssim -t
run.solstice =	$(B)/rotorsched -m solstice | $(B)/ocssim -t
run.eclipse =	$(B)/rotorsched -m eclipse | $(B)/ocssim -t
# The hosts of these know when every circuit is up (ocssim -H circuit):
# they keep bytes in GPU memory until their circuit is.
run.rotor-direct-circuit = $(B)/rotorsched -m rotor -f direct | \
		    $(B)/ocssim -t -H circuit
run.bvn-circuit = $(B)/rotorsched -m bvn | $(B)/ocssim -t -H circuit

# Each file's whole command.
$(foreach c,$(CASES),$(eval cmd.$(OUT)/$(c).dag.msgpack = $$(call dag,$(c))))
$(foreach c,$(CASES),$(foreach s,$(SCHEDULERS),$(eval \
    cmd.$(OUT)/$(c)-$(s).msgpack = $$(call dag,$(c)) | $$(run.$(s)))))

STUDY =		study
KEPT =		$(DAGS) $(RUNS)
include $(dir $(lastword $(MAKEFILE_LIST)))cmd.mk

# tools CMD: the tools a command runs (those of a DAG's are the same
# at any layers and tau).
tools =		$(filter $(B)/%,$(1))

$(DAGS): $(OUT)/%.dag.msgpack: $(call tools,$(call dag,l1-tau1s)) $(DAGIN)
	@mkdir -p $(OUT)
	@$(begin) $(call dag,$*) > $@.tmp; $(end)

# run SCHEDULER: the rule of its runs.  The DAG goes to the pipeline's
# first tool (< DAG first), $@.tmp comes from its last: made by the
# last tool's shell, the signal that an interrupt sends once it is
# there reaches every tool.
define run
$$(filter %-$(1).msgpack,$$(RUNS)): %-$(1).msgpack: \
    $$(call tools,$$(call dag,l1-tau1s) $$(run.$(1))) $$(DAGIN) | \
    %.dag.msgpack
	@$$(begin) < $$*.dag.msgpack $$(run.$(1)) > $$@.tmp; $$(end); \
	    $$(call say,$$(@F))
endef

$(foreach s,ideal flux rotor-direct rotor-placed rotor-vlb rotor-rotorlb \
    bvn solstice eclipse rotor-direct-circuit bvn-circuit,$(eval \
    $(call run,$(s))))

# The runs in table order, for pipelines/study.
list:
	@printf '%s\n' $(RUNS)

# What the runs are made with that the table's rows do not say.
SETTINGS =	tools $(TOOLS); $(if $(TRACE),TRACE=$(TRACE)$(if \
		    $(TRACE_GROUPS), TRACE_GROUPS=$(TRACE_GROUPS)),TP=$(TP) \
		    DP=$(DP)) FLUXSOLVE_ARGS="$(strip $(FLUXSOLVE_ARGS))" \
		    PLACE_EVALS=$(PLACE_EVALS)
settings:
	@printf '%s\n' $(call quote,$(SETTINGS))

# A missing DAG is made only for a run to be made: one that another
# host made comes back without it (README, sweep).
.SECONDARY: $(DAGS)

.PHONY: all list settings
.DELETE_ON_ERROR:
