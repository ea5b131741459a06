#!/usr/bin/env bash
# Runs each `make` check given as an argument, all of them even when one fails, then prints one
# line per check with its time and result. Exits 1 when any failed. Used by `make test`.
set -uo pipefail

declare -a names results times
failed=0
for step in "$@"; do
    printf '\n\033[1m==> make %s\033[0m\n' "$step"
    start=$(date +%s)
    if make --no-print-directory "$step"; then
        results+=("ok")
    else
        results+=("FAILED")
        failed=$((failed + 1))
    fi
    names+=("$step")
    times+=("$(( $(date +%s) - start ))")
done

printf '\n\033[1m==> summary\033[0m\n'
for i in "${!names[@]}"; do
    printf '  %-16s %6ss  %s\n' "${names[$i]}" "${times[$i]}" "${results[$i]}"
done
if [[ $failed -gt 0 ]]; then
    echo "make test: $failed of $# checks failed"
    exit 1
fi
echo "make test: all $# checks passed"
