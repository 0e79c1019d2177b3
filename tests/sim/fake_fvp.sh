#!/usr/bin/env bash
# A stand-in for a Corstone FVP, to test fvp_test's FVP path without one: takes the FVP's
# command line (-a ELF, -C <cpu>.semihosting-cmd_line="prog args", other -C ignored), runs
# the program on QEMU's mps3-an547 and, like the FVPs, exits 0 whatever the program did.
set -u
elf=""
cmdline=""
while [ $# -gt 0 ]; do
  case "$1" in
    -a) elf=$2; shift 2 ;;
    -C)
      case "$2" in *semihosting-cmd_line=*) cmdline=${2#*semihosting-cmd_line=} ;; esac
      shift 2 ;;
    *) shift ;;
  esac
done
semi="enable=on,target=native"
for word in $cmdline; do semi="$semi,arg=$word"; done
echo "fake FVP: running $elf"
qemu-system-arm -M mps3-an547 -nographic -monitor none -serial none -semihosting-config "$semi" -kernel "$elf"
echo "fake FVP: simulation ended"
exit 0
