#!/usr/bin/env bash
# Every program's --help: exits 0, speaks of QR, tiles and trees rather than
# requirement ids or the design documents ("FR1".."FR4", "seed 000", "the
# seed's"), and lists only the options the program honours.
#   check_help.sh PROGRAM[:OPTION,OPTION...] ...   (the options it must not list)
set -uo pipefail
failed=0
for arg in "$@"; do
  program=${arg%%:*}
  absent=""
  [ "$arg" != "$program" ] && absent=${arg#*:}
  name=$(basename "$program")
  if ! help=$("$program" --help 2>&1); then
    echo "$name --help: exit status not 0"; echo "$help"; failed=1; continue
  fi
  if words=$(grep -noE 'FR[1-4]|[Ss]eed (0[0-9][0-9]|paper|document)|the seed'"'"'?s?\b' <<<"$help"); then
    echo "$name --help names requirement ids or the design documents:"; echo "$words"; failed=1
  fi
  for option in ${absent//,/ }; do
    if grep -qE -- "(^|[ ,])$option([ =]|$)" <<<"$help"; then
      echo "$name --help lists $option, which it does not honour"; failed=1
    fi
  done
  echo "$name --help: checked"
done
exit $failed
