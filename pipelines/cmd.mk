# A file a study keeps is used again only if the command that would
# make it now is the command that made it (issue 34: a stream's name
# says only some of its settings).  Included at the end of
# pipelines/study.mk and pipelines/scale-study.mk.
#
# The study's .mk sets STUDY (its name, for messages), KEPT (every file
# it keeps: streams, run files, DAGs, ops) and, for each of them,
# cmd.FILE: the whole pipeline that makes FILE from nothing, with the
# tools' folder ($(B), below) and every setting in it; not the names of
# FILE's input files: the pipeline of a run holds the pipeline of its
# DAG.  Its recipes write $@.tmp between $(begin) and $(end):
#	@$(begin) COMMAND < INPUT > $@.tmp; $(end)
#
# When FILE is made, its command goes beside it, in FILE.cmd.  A FILE
# that is there is made again, and says so on stderr, when FILE.cmd is
# not (made by an earlier version of the study, or an interrupted
# recipe), or holds another command:
#	study: results/study/l8-tau1ms.dag.msgpack: made by other settings (was: ..., now: ...): remade
# The check is of the files' contents, at the start, not of their
# times: FILE.cmd may come back from another host with FILE (rsync
# gives both the time they arrive).  Times do the rest, as make's do:
# a file is made again when a tool of its command, or another file it
# is made from, is newer (and says which).  A run depends on its DAG
# only to have it (order-only): the run's own command holds the DAG's,
# and the DAG's tools are among the run's prerequisites, so that a DAG
# made again from the same command (an intermediate file, which make
# removes when done) makes no run again.
#
# FILE and FILE.cmd are written under temporary names, FILE.cmd is
# removed before FILE is renamed and put back after it: an interrupted
# recipe leaves the old pair, or FILE with no FILE.cmd (made again
# next time), never FILE beside the command of another.  Files in
# NOCMD (intermediate files, removed when done) get no FILE.cmd: one
# left behind is made again.

# B: the tools' folder, as the recipes run them; TOOLS: as the
# commands recorded name it: from the top of the checkout this file is
# in when it lies there (build/bin), so that the same folder reads the
# same from any working folder, and a checkout's build/bin the same on
# every host of a sweep; else in full.
B :=		$(or $(realpath $(BIN)),$(abspath $(BIN)))
TOP :=		$(realpath $(dir $(lastword $(MAKEFILE_LIST)))..)
TOOLS :=	$(patsubst $(TOP)/%,%,$(B))

# cmd FILE: FILE's command as recorded, its white space squeezed.
cmd =		$(strip $(subst $(B)/,$(TOOLS)/,$(cmd.$(1))))
# was FILE: the command in FILE.cmd.
was =		$(strip $(file <$(1).cmd))
# differ A, B: not empty when A and B differ.
differ =	$(subst $(1),,$(2))$(subst $(2),,$(1))
# stale FILE: why FILE, if it is there, cannot be used again.
stale =		$(if $(wildcard $(1)),$(if $(wildcard $(1).cmd),$(if $(call \
		    differ,$(call was,$(1)),$(call cmd,$(1))),made by other \
		    settings (was: $(call was,$(1)), now: $(call cmd,$(1)))),made \
		    by unknown settings (no $(notdir $(1)).cmd)))

# STALE: the files there whose command is not the one they would be
# made by now; FRESH: those there that are.
STALE :=	$(foreach f,$(KEPT),$(if $(call stale,$(f)),$(f)))
FRESH :=	$(filter-out $(STALE),$(wildcard $(KEPT)))
START :=	$(shell date +%s.%N)

ifneq ($(STALE),)
$(STALE): FORCE
endif
FORCE:

# quote TEXT: TEXT as one word of the shell.
quote =		'$(subst ','\'',$(1))'

# why: the recipe's line on stderr when it makes a file again.
why =		$(if $(call stale,$@),printf '%s\n' $(call quote,$(STUDY): \
		    $@: $(call stale,$@): remade) >&2;,$(if $(wildcard \
		    $@),$(if $(filter-out FORCE,$?),printf '%s\n' $(call \
		    quote,$(STUDY): $@: older than $(filter-out FORCE,$?): \
		    remade) >&2;)))

# begin, end: the recipe's first and last words.  Its temporary files
# (and TMPS) go however its shell ends: on a failure (-e), or on a
# signal, which make sends the whole job on an interrupt (make itself
# only deletes $@, never written before the rename).
begin =		$(why) trap 'rm -f $@.tmp $@.cmd.tmp $(TMPS)' EXIT; \
		trap 'exit 130' INT TERM HUP;
end =		$(if $(filter $@,$(NOCMD)),rm -f $@.cmd; mv $@.tmp $@,printf \
		    '%s\n' $(call quote,$(call cmd,$@)) > $@.cmd.tmp; \
		    rm -f $@.cmd; mv $@.tmp $@; mv $@.cmd.tmp $@.cmd)

# made LIST: a shell expression, how many files of LIST are made by
# the current settings: those that were at the start and those made
# since (by their new FILE.cmd).
made =		$$(( $(words $(filter $(1),$(FRESH))) $(if $(filter-out \
		    $(FRESH),$(1)),+ $$( (find $(addsuffix .cmd,$(filter-out \
		    $(FRESH),$(1))) -newermt @$(START) 2>/dev/null || true) | \
		    wc -l))))

.PHONY: FORCE
