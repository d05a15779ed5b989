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

# say NAME: one line of progress on stderr.
say =		n=$$( (ls $(RUNS) 2>/dev/null || true) | wc -l); \
		echo "scale-study: [$$n/$(NRUNS)] $(1)" >&2

# tmp: the recipe's temporary files go however its shell ends.
tmp =		trap 'rm -f $@.tmp $@.err' EXIT; trap 'exit 130' INT TERM HUP

# sim ARGS: ocssim within SIM_LIMIT, into report -j; a run cut by the
# limit leaves its dnf line instead.
sim =		if $(BIN)/ocssim $(if $(filter-out 0,$(SIM_LIMIT)),-T $(SIM_LIMIT)) \
		    $(1) 2> $@.err | $(BIN)/report -j - > $@.tmp 2>> $@.err; \
		then mv $@.tmp $@; \
		elif grep -q '^ocssim: time limit of' $@.err; then \
		    printf '{"dnf":true,"sim_limit_s":%s}\n' $(SIM_LIMIT) > $@; \
		else cat $@.err >&2; exit 1; fi; $(call say,$(@F))

$(OPS): $(BIN)/tracegen
	@mkdir -p $(OUT)
	@$(tmp); $(BIN)/tracegen -l $(LAYERS) -t $(TP) -d $(DP) > $@.tmp; \
	    mv $@.tmp $@

$(DAGS): $(G)-tau%.dag.msgpack: $(OPS) $(BIN)/dagbuild
	@$(tmp); $(BIN)/dagbuild -r $* < $< > $@.tmp; mv $@.tmp $@

$(G)-ideal.json: $(G)-tau$(firstword $(TAUS)).dag.msgpack $(BIN)/ocssim \
    $(BIN)/report
	@$(tmp); $(call sim,-f ideal < $<)

# run NAME, SCHEDULER COMMAND: the rule of one scheduler's runs.
define run
$$(filter %-$(1).json,$$(RUNS)): $(G)-tau%-$(1).json: \
    $(G)-tau%.dag.msgpack $$(BIN)/fluxsolve $$(BIN)/rotorsched \
    $$(BIN)/ocssim $$(BIN)/report
	@$$(tmp); $(2) < $$< | $$(call sim,)
endef

$(eval $(call run,flux,$$(BIN)/fluxsolve -T $(FLUX_BUDGET)))
$(eval $(call run,flux-greedy,$$(BIN)/fluxsolve -m greedy))
$(eval $(call run,rotor-direct,$$(BIN)/rotorsched -m rotor -f direct))
$(eval $(call run,rotor-vlb,$$(BIN)/rotorsched -m rotor -f vlb))
$(eval $(call run,bvn,$$(BIN)/rotorsched -m bvn))

# The runs in table order, for pipelines/scale-study.
list:
	@printf '%s\n' $(RUNS)

ifeq ($(KEEP),)
.INTERMEDIATE: $(OPS) $(DAGS)
else
.SECONDARY: $(OPS) $(DAGS)
endif

.PHONY: all list
.DELETE_ON_ERROR:
