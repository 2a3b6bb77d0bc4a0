# Sourced by the test scripts: `phase NAME` starts a timed phase (and ends the
# one before); `phases_done` ends the last and prints every phase's duration,
# so a slow phase shows at the end of a long log.
phase_names=()
phase_seconds=()
phase_started=
phase_end() {
  if [ -n "$phase_started" ]; then phase_seconds+=($((SECONDS - phase_started))); fi
}
phase() {
  phase_end
  phase_names+=("$1")
  phase_started=$SECONDS
  echo "== $1"
}
phases_done() {
  phase_end
  phase_started=
  echo "== durations"
  local i
  for i in "${!phase_names[@]}"; do
    printf '%6ss  %s\n' "${phase_seconds[$i]}" "${phase_names[$i]}"
  done
  printf '%6ss  %s\n' "$SECONDS" "in all"
}
