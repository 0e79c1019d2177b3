# Sourced by the runner comparison tests (differential_test.sh, runners_test.sh): `run NAME
# COMMAND...` runs one runner with its output in $tmp/NAME.log, prints the log without the
# printed output values, and on a non-zero exit prints all of it and fails the test.
run() {
  local name=$1
  shift
  echo "--- $name: $*"
  if ! "$@" > "$tmp/$name.log" 2>&1; then
    cat "$tmp/$name.log"
    echo "FAIL: $name exited non-zero"
    exit 1
  fi
  grep -a -v '^out[0-9]*:' "$tmp/$name.log"
}
