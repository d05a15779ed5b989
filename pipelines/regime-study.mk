# The runs of one point of pipelines/regime-study as make targets, so
# that make -j runs them side by side: one workload (W), scale-up domain
# (D GPUs), OCS position (P) and per-GPU bandwidth (BW, Gbit/s) on N
# GPUs, its collectives as transfers by algorithm A (dagbuild -a: ring
# or hd), every tau of TAUS and every scheduler of SCHEDULERS.
# pipelines/regime-study checks the knobs and drives it; by hand:
#	make -f pipelines/regime-study.mk -j2 BIN=build/bin \
#	    OUT=results/regime-study N=64 W=dense D=8 P=rail BW=400
#
# Files, in $(OUT), named by the point, $(PT) = N<n>-<W>-d<D>-<P>-b<BW>
# and, for an algorithm other than the ring, -<A>:
#   $(PT).fabric              the fabric (dagbuild --fabric): D = 1 is
#                             the paper's flat net of two OCS of BW/2
#                             each; else an eps group:D (NVLink: 3.6
#                             Tbit/s at 8, 7.2 at 72) and the OCS at P:
#                             gpu "ocs all", rail "ocs rail:D", uplink
#                             "ocs uplink:D:1 count=D", each port BW;
#   $(PT).ops.msgpack         tracegen's ops, made once a point;
#   $(PT)-tau<T>.dag.msgpack  the DAG at tau T (dagbuild -r T);
#   $(PT)-ideal.json          the ideal fabric (every plane a
#                             non-blocking switch; tau leaves it alone);
#   $(PT)-eps.json            the EPS-only fabric of the OCS's cost
#                             (dagbuild --eps-equal-cost$(COST)),
#                             ideal;
#   $(PT)-tau<T>-<sched>.json every other run: flux (fluxsolve -T
#                             FLUX_BUDGET), static, phase, bvn, rotor
#                             (rotorsched -m ...).
# Each run file is report -j's line of the run, or, for a simulation cut
# by SIM_LIMIT, {"dnf":true}, or, for a scheduler that refuses the point
# (exit 1: rotorsched -m static on a matching, say) or a schedule whose
# times pass 2^64 ps in the simulation (RotorNet's periods at a long tau
# on many GPUs), {"na": "the message"}; any other failure fails the
# study.  FILE.cmd beside each
# holds the pipeline that made it (pipelines/cmd.mk): a file made by
# other settings is made again, saying so.

BIN ?=		build/bin
OUT ?=		results/regime-study
N ?=		64
W ?=		dense
D ?=		8
P ?=		rail
BW ?=		400
A ?=		ring
TAUS ?=		10us
SCHEDULERS ?=	ideal eps flux static phase bvn rotor
LAYERS ?=	2
FLUX_BUDGET ?=	10
SIM_LIMIT ?=	60
COST ?=
KEEP ?=

SHELL =		/bin/bash
.SHELLFLAGS =	-o pipefail -ec

PT :=		$(OUT)/N$(N)-$(W)-d$(D)-$(P)-b$(BW)$(if $(filter-out ring,$(A)),-$(A))
FAB :=		$(PT).fabric
OPS :=		$(PT).ops.msgpack
DAGS :=		$(TAUS:%=$(PT)-tau%.dag.msgpack)
TAUED :=	$(filter-out ideal eps,$(SCHEDULERS))
RUNS :=		$(if $(filter ideal,$(SCHEDULERS)),$(PT)-ideal.json) \
		$(if $(filter eps,$(SCHEDULERS)),$(PT)-eps.json) \
		$(foreach t,$(TAUS),$(TAUED:%=$(PT)-tau$(t)-%.json))
NRUNS :=	$(words $(RUNS))

all: $(RUNS)

say =		echo "regime-study: $(notdir $(PT)): [$(call made,$(RUNS))/$(NRUNS)] $(1)" >&2

# The fabric's text, a line a plane.
nvlink :=	$(if $(filter 72,$(D)),7200,3600)
ocs.gpu =	ocs all rate=$(BW)Gbps
ocs.rail =	ocs rail:$(D) rate=$(BW)Gbps
ocs.uplink =	ocs uplink:$(D):1 count=$(D) rate=$(BW)Gbps
fabtext :=	$(if $(filter 1,$(D)),ocs all count=2 rate=$(shell echo \
		    $$(($(BW) / 2)))Gbps,eps group:$(D) rate=$(nvlink)Gbps\n$(ocs.$(P)))

# The workloads: Llama 3 8B, tensor parallel min(D, 8) x data parallel
# (pure data parallel at D = 1); Mixtral 8x7B, 8 experts a group of 8
# (expert parallel 8), routing uniform or skewed (gini 0.5), seed 1.
TP :=		$(if $(filter 1,$(D)),1,8)
ops.dense =	$(B)/tracegen -g h100 -l $(LAYERS) -t $(TP) -d $(shell echo \
		    $$(($(N) / $(TP))))
ops.moe-uniform = $(B)/tracegen -g h100 -M mixtral-8x7b -l $(LAYERS) -t 1 \
		    -x 8 -d $(N) --seed 1
ops.moe-skew =	$(ops.moe-uniform) --skew gini:0.5
ops =		$(ops.$(W))

fab =		printf '$(fabtext)\n'
alg :=		$(if $(filter-out ring,$(A)),-a $(A) )
dag =		$(ops) | $(B)/dagbuild $(alg)--fabric=$(FAB) -r $(1)
ocssim =	$(B)/ocssim$(if $(filter-out 0,$(SIM_LIMIT)), -T $(SIM_LIMIT))
sched.flux =	$(B)/fluxsolve -T $(FLUX_BUDGET)
sched.static =	$(B)/rotorsched -m static
sched.phase =	$(B)/rotorsched -m phase
sched.bvn =	$(B)/rotorsched -m bvn
sched.rotor =	$(B)/rotorsched -m rotor

cmd.$(FAB) =	$(fab)
cmd.$(OPS) =	$(ops)
$(foreach t,$(TAUS),$(eval cmd.$(PT)-tau$(t).dag.msgpack = \
    $(fab) > fabric; $$(call dag,$(t))))
cmd.$(PT)-ideal.json = $(fab) > fabric; $(call dag,$(firstword $(TAUS))) | \
		    $(ocssim) -f ideal | $(B)/report -j -
cmd.$(PT)-eps.json = $(fab) > fabric; $(ops) | $(B)/dagbuild \
		    $(alg)--fabric=$(FAB) --eps-equal-cost$(if $(COST),=$(COST)) | \
		    $(ocssim) -f ideal | $(B)/report -j -
$(foreach t,$(TAUS),$(foreach s,$(TAUED),$(eval \
    cmd.$(PT)-tau$(t)-$(s).json = $(fab) > fabric; $$(call dag,$(t)) | \
    $$(sched.$(s)) | $$(ocssim) | $$(B)/report -j -)))

STUDY =		regime-study
KEPT =		$(FAB) $(OPS) $(DAGS) $(RUNS)
NOCMD =		$(if $(KEEP),,$(OPS) $(DAGS))
TMPS =		$@.err
include $(dir $(lastword $(MAKEFILE_LIST)))cmd.mk

tools =		$(filter $(B)/%,$(1))

# run TOOL, PIPELINE[, FIX]: the pipeline into report -j (FIX, a
# command, then rewrites $@.tmp); a simulation cut by SIM_LIMIT leaves
# {"dnf":true}, a refusal of TOOL (its message, but for the cost line of
# --eps-equal-cost) or ocssim's of a time past 2^64 ps {"na":...}.
refusal =	grep -E '^$(1): |^ocssim: .* passes 18446744073709551615' \
		    $@.err | grep -v ': --eps-equal-cost: the scale-out of' | \
		    head -n 1
run =		if { $(2); } 2> $@.err | $(B)/report -j - > $@.tmp 2>> $@.err; \
		then $(3) :; elif grep -q '^ocssim: time limit of' $@.err; \
		then printf '{"dnf":true,"sim_limit_s":%s}\n' $(SIM_LIMIT) \
		    > $@.tmp; \
		elif [ -n '$(1)' ] && [ -n "$$($(refusal))" ]; then \
		    jq -cn --arg m "$$($(refusal))" '{na: $$m}' > $@.tmp; \
		else cat $@.err >&2; exit 1; fi; $(end); $(call say,$(@F))

# the cost line of --eps-equal-cost, into the run's line
costline =	c=$$(grep -m1 ': --eps-equal-cost: the scale-out of' $@.err || :); \
		jq -c --arg c "$${c\#dagbuild: --eps-equal-cost: }" \
		    '. + {cost: $$c}' $@.tmp > $@.err && mv $@.err $@.tmp;

$(FAB):
	@mkdir -p $(OUT)
	@$(begin) $(fab) > $@.tmp; $(end)

$(OPS): $(call tools,$(ops))
	@mkdir -p $(OUT)
	@$(begin) $(ops) > $@.tmp; $(end)

$(DAGS): $(PT)-tau%.dag.msgpack: $(OPS) $(FAB) $(call tools,$(call dag,1s))
	@$(begin) $(B)/dagbuild $(alg)--fabric=$(FAB) -r $* < $< > $@.tmp; $(end)

$(PT)-ideal.json: $(FAB) $(call tools,$(cmd.$(PT)-ideal.json)) | \
    $(PT)-tau$(firstword $(TAUS)).dag.msgpack
	@$(begin) $(call run,,$(ocssim) -f ideal < $|)

$(PT)-eps.json: $(FAB) $(call tools,$(cmd.$(PT)-eps.json)) | $(OPS)
	@$(begin) $(call run,dagbuild,$(B)/dagbuild $(alg)--fabric=$(FAB) \
	    --eps-equal-cost$(if $(COST),=$(COST)) < $| | $(ocssim) -f ideal, \
	    $(costline))

define one
$$(filter %-$(1).json,$$(RUNS)): $(PT)-tau%-$(1).json: $(FAB) \
    $$(call tools,$$(call dag,1s) $$(sched.$(1)) $$(ocssim) $$(B)/report) | \
    $(PT)-tau%.dag.msgpack
	@$$(begin) $$(call run,$(2),$$(sched.$(1)) < $$| | $$(ocssim))
endef

$(eval $(call one,flux,fluxsolve))
$(foreach s,static phase bvn rotor,$(eval $(call one,$(s),rotorsched)))

list:
	@printf '%s\n' $(RUNS)

settings:
	@printf '%s\n' $(call quote,tools $(TOOLS); LAYERS=$(LAYERS) \
	    FLUX_BUDGET=$(FLUX_BUDGET) SIM_LIMIT=$(SIM_LIMIT) \
	    COST=$(if $(COST),$(COST),defaults))

ifeq ($(KEEP),)
.INTERMEDIATE: $(OPS) $(DAGS)
else
.SECONDARY: $(OPS) $(DAGS)
endif

.PHONY: all list settings
.DELETE_ON_ERROR:
