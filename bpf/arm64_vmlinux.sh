#!/bin/sh
# bpf/arm64_vmlinux.sh VMLINUX_H > OUT: this machine's vmlinux.h with struct
# pt_regs as arm64 lays it out (and arm64's struct user_pt_regs), so that an x86
# machine can check that the recorder compiles for arm64: that it reads the user
# registers through PT_REGS_* and names no x86 field (`make check-bpf-arm64`,
# part of `make test`). The object is compiled only, never loaded.
set -eu
awk '
/^struct pt_regs \{/ { skip = 1
	print "struct user_pt_regs {\n\t__u64 regs[31];\n\t__u64 sp;\n\t__u64 pc;\n\t__u64 pstate;\n};\n"
	print "struct pt_regs {\n\tunion {\n\t\tstruct user_pt_regs user_regs;\n\t\tstruct {\n\t\t\t__u64 regs[31];\n\t\t\t__u64 sp;\n\t\t\t__u64 pc;\n\t\t\t__u64 pstate;\n\t\t};\n\t};\n\t__u64 orig_x0;\n\t__s32 syscallno;\n\t__u32 pmr;\n\t__u64 sdei_ttbr1;\n\t__u64 stackframe[2];\n\t__u64 lockdep_hardirqs;\n\t__u64 exit_rcu;\n};"
	next }
skip && /^\};/ { skip = 0; next }
!skip
' "$1"
