# The runs of the scaling study as make targets, so that make -j runs
# them side by side.  pipelines/scale-study drives it, one size at a
# time; to run one size by hand:
#	make -f pipelines/scale-study.mk -j2 BIN=build/bin \
#	    OUT=results/scale-study SIZE=64
# Shapes: Llama 3 8B, LAYERS layers, tensor parallel 4 x data parallel
# 2 at 8 GPUs (the paper's), tensor parallel 8 x data parallel SIZE/8
# at 16 GPUs and more (tp8 dp8 at 64, dp32 at 256, dp128 at 1024).
# SIZE must be 8 or a multiple of 8 from 16; pipelines/scale-study
# checks the knobs before it comes here.
#
# Files, in $(OUT):
#   g<N>.ops.msgpack           tracegen's ops, made once per size;
#   g<N>-tau<T>.dag.msgpack    the DAG at tau T (dagbuild -r T), made
#                              once and shared by every run at N and T;
#   g<N>-ideal.json            the ideal fabric, once per size (it never
#                              reconfigures: tau leaves it alone), on the
#                              DAG of the first tau;
#   g<N>-tau<T>-<sched>.json   every other run.
# A run is a plain pipeline: scheduler | ocssim | report -j -.  Its
# stream (the whole DAG passed through: 1.1 GB at 1024 GPUs) never
# touches the disk; what is kept is report's JSON line of it, which is
# all the table and plots need.  The ops and the DAGs are intermediate:
# make removes them when the size is done, unless KEEP is set (for
# report -g, say).  A run file is written under a temporary name and
# renamed when whole, so an interrupted study resumes where it stopped.
# Beside each run file (and each ops and DAG stream kept), FILE.cmd
# holds the whole pipeline that made it, with the tools' folder and
# every setting (LAYERS, FLUX_BUDGET, SIM_LIMIT, ...), which the file's
# name does not all say: a file is made again when the pipeline it
# would be made by now is another, or when a tool of it is rebuilt, and
# says so on stderr (pipelines/cmd.mk).  Changing FLUX_BUDGET makes the
# flux runs again and no other; changing LAYERS, all of them.
#
# A simulation that passes SIM_LIMIT seconds of wall-clock time (ocssim
# -T; 0 for none) is not a failure of the study: its run file holds
# "dnf" and the limit instead of report's line, and its row says so.
# Any other failure fails the study.

BIN ?=		build/bin
OUT ?=		results/scale-study
SIZE ?=		8
LAYERS ?=	32
TAUS ?=		10us 1ms
SCHEDULERS ?=	ideal flux flux-greedy rotor-direct rotor-vlb bvn
FLUX_BUDGET ?=	60
SIM_LIMIT ?=	0
FABRIC ?=
ALGORITHM ?=	ring
KEEP ?=

SHELL =		/bin/bash
.SHELLFLAGS =	-o pipefail -ec

TP :=		$(if $(filter 8,$(SIZE)),4,8)
DP :=		$(shell echo $$(($(SIZE) / $(TP))))
G :=		$(OUT)/g$(SIZE)
OPS :=		$(G).ops.msgpack
DAGS :=		$(TAUS:%=$(G)-tau%.dag.msgpack)
NONIDEAL :=	$(filter-out ideal,$(SCHEDULERS))
RUNS :=		$(if $(filter ideal,$(SCHEDULERS)),$(G)-ideal.json) \
		$(foreach t,$(TAUS),$(NONIDEAL:%=$(G)-tau$(t)-%.json))
NRUNS :=	$(words $(RUNS))

all: $(RUNS)

# say NAME: one line of progress on stderr: how many runs are made by
# the current settings.
say =		echo "scale-study: [$(call made,$(RUNS))/$(NRUNS)] $(1)" >&2

# The commands, B for the tools' folder (pipelines/cmd.mk): ops; dag
# TAU, from nothing; a run's: its DAG's, sched.SCHEDULER (the ideal
# fabric has none: ocssim -f ideal), ocssim (within SIM_LIMIT) and
# report -j.
ops =		$(B)/tracegen -l $(LAYERS) -t $(TP) -d $(DP)
fabric =	$(if $(FABRIC), --fabric=$(FABRIC))$(if $(filter-out \
		    ring,$(ALGORITHM)), -a $(ALGORITHM))
dag =		$(ops) | $(B)/dagbuild$(fabric) -r $(1)
ocssim =	$(B)/ocssim$(if $(filter-out 0,$(SIM_LIMIT)), -T $(SIM_LIMIT))
sched.flux =	$(B)/fluxsolve -T $(FLUX_BUDGET)
sched.flux-greedy = $(B)/fluxsolve -m greedy
sched.rotor-direct = $(B)/rotorsched -m rotor -f direct
sched.rotor-vlb = $(B)/rotorsched -m rotor -f vlb
sched.bvn =	$(B)/rotorsched -m bvn

cmd.$(OPS) =	$(ops)
$(foreach t,$(TAUS),$(eval cmd.$(G)-tau$(t).dag.msgpack = $$(call dag,$(t))))
cmd.$(G)-ideal.json = $(call dag,$(firstword $(TAUS))) | $(ocssim) -f \
		    ideal | $(B)/report -j -
$(foreach t,$(TAUS),$(foreach s,$(NONIDEAL),$(eval \
    cmd.$(G)-tau$(t)-$(s).json = $$(call dag,$(t)) | $$(sched.$(s)) | \
    $$(ocssim) | $$(B)/report -j -)))

STUDY =		scale-study
KEPT =		$(OPS) $(DAGS) $(RUNS)
NOCMD =		$(if $(KEEP),,$(OPS) $(DAGS))
TMPS =		$@.err
include $(dir $(lastword $(MAKEFILE_LIST)))cmd.mk

# tools CMD: the tools a command runs.
tools =		$(filter $(B)/%,$(1))

# sim PIPELINE: PIPELINE, ending in ocssim, within SIM_LIMIT, into report
# -j; a run cut by the limit leaves its dnf line instead.
sim =		if $(1) 2> $@.err | $(B)/report -j - > $@.tmp 2>> $@.err; \
		then :; elif grep -q '^ocssim: time limit of' $@.err; then \
		    printf '{"dnf":true,"sim_limit_s":%s}\n' $(SIM_LIMIT) \
		    > $@.tmp; \
		else cat $@.err >&2; exit 1; fi; $(end); $(call say,$(@F))

$(OPS): $(call tools,$(ops))
	@mkdir -p $(OUT)
	@$(begin) $(ops) > $@.tmp; $(end)

$(DAGS): $(G)-tau%.dag.msgpack: $(OPS) $(call tools,$(call dag,1s))
	@$(begin) $(B)/dagbuild$(fabric) -r $* < $< > $@.tmp; $(end)

# A run needs its DAG only to be made: its own command holds the DAG's,
# and it depends on the DAG's tools (pipelines/cmd.mk).
$(G)-ideal.json: $(call tools,$(cmd.$(G)-ideal.json)) | \
    $(G)-tau$(firstword $(TAUS)).dag.msgpack
	@$(begin) $(call sim,$(ocssim) -f ideal < $|)

# run SCHEDULER: the rule of its runs.
define run
$$(filter %-$(1).json,$$(RUNS)): $(G)-tau%-$(1).json: \
    $$(call tools,$$(call dag,1s) $$(sched.$(1)) $$(ocssim) $$(B)/report) | \
    $(G)-tau%.dag.msgpack
	@$$(begin) $$(call sim,$$(sched.$(1)) < $$| | $$(ocssim))
endef

$(foreach s,flux flux-greedy rotor-direct rotor-vlb bvn,$(eval \
    $(call run,$(s))))

# The runs in table order, for pipelines/scale-study.
list:
	@printf '%s\n' $(RUNS)

# What the runs are made with that the table's rows do not say.
settings:
	@printf '%s\n' $(call quote,tools $(TOOLS); LAYERS=$(LAYERS) \
	    FLUX_BUDGET=$(FLUX_BUDGET) SIM_LIMIT=$(SIM_LIMIT) \
	    FABRIC=$(if $(FABRIC),$(FABRIC),paper) ALGORITHM=$(ALGORITHM))

ifeq ($(KEEP),)
.INTERMEDIATE: $(OPS) $(DAGS)
else
.SECONDARY: $(OPS) $(DAGS)
endif

.PHONY: all list settings
.DELETE_ON_ERROR:
