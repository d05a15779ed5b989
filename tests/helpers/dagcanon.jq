# The tasks of a DAG, each named by what it is, its deps by their names:
# the same lines for the same DAG whatever the task ids.
[.[] | select(.type == "task")] |
(map({key: (.id | tostring), value: ([.kind, .name, .gpu, .src, .dst, .bytes, .duration_ps, .step] | tostring)}) | from_entries) as $k |
.[] | [$k[.id | tostring], ([.deps[] | $k[tostring]] | sort)] | tostring
