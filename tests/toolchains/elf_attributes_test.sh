#!/usr/bin/env bash
# usage: elf_attributes_test.sh ELF [+present | -absent]...
# Checks `arm-none-eabi-readelf -A ELF` for lines containing each +string and none
# containing a -string.
set -uo pipefail
elf=$1
shift
attrs=$(arm-none-eabi-readelf -A "$elf") || { echo "readelf failed on $elf"; exit 1; }
echo "$attrs"
status=0
for check in "$@"; do
  want=${check:1}
  case "$check" in
    +*) grep -q -F -- "$want" <<<"$attrs" || { echo "FAIL: missing '$want'"; status=1; } ;;
    -*) ! grep -q -F -- "$want" <<<"$attrs" || { echo "FAIL: unexpected '$want'"; status=1; } ;;
    *) echo "bad check '$check' (needs + or -)"; exit 2 ;;
  esac
done
exit $status
