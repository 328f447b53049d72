#!/bin/bash
# Lands the interleaved re-run (README.md, "Land it", steps 1 and 2): the key into the two
# manifests' scenario, the refitted TCP ceiling into validation/calibration.json, these runs in
# place of the TCP series' serial runs in results/validation/points, and the report rewritten.
# Every check comes before the first change: it refuses unless every run of the two manifests
# is here and committed, and the calibrations' profiles agree. Run it from the project root.
set -euo pipefail
here=results/validation-interleaved
shipped=results/validation/points
manifests=(validation/manifests/websearch-tcp-configB.json validation/manifests/iteration-cdfs.json)
all=(validation/manifests/iperf-rdma-configA.json validation/manifests/iteration-cdfs.json
    validation/manifests/websearch-rdma-configB.json validation/manifests/websearch-tcp-configB.json)
budget=(--max-sim-s 4 --budget-iterations 5)
fail() {
    echo "land.sh: $*" >&2
    exit 1
}
test -f "$here/land.sh" || fail "run it from the project root"

# 1. Every run of the two manifests, planned as the re-run plans them, is done here...
report=$(./flumen validate "${manifests[@]}" --set job.tcp.interleave_stripes=true --out "$here" \
    --calibration "$here/calibration.json" "${budget[@]}" --report-only 2>&1 || true)
counts=$(sed -n 's/.* \([0-9]*\) of \([0-9]*\) simulation runs finished.*/\1 \2/p' <<<"$report")
read -r finished planned <<<"${counts:-x y}"
[ "$finished" = "$planned" ] || fail "not every run is done here ($finished of $planned):
$report"
# ... and committed (git mv moves tracked files only).
[ -z "$(git status --porcelain -- "$here/points")" ] ||
    fail "$here/points has changes not committed (or leftovers of a run): commit or remove them"
python3 - <<'EOF' || fail "the calibrations' model profiles differ: refit the ceiling again"
import json, sys
shipped = json.load(open("validation/calibration.json"))
refit = json.load(open("results/validation-interleaved/calibration.json"))
sys.exit(0 if shipped["models"] == refit["models"] else 1)
EOF

# 2. The key and the ceiling (the files keep their 2-space JSON).
python3 - "${manifests[@]}" <<'EOF'
import json, sys
for path in sys.argv[1:]:
    m = json.load(open(path))
    m.setdefault("scenario", {}).setdefault("job", {}).setdefault("tcp", {})["interleave_stripes"] = True
    open(path, "w").write(json.dumps(m, indent=2, ensure_ascii=False) + "\n")
shipped = json.load(open("validation/calibration.json"))
shipped["transports"] = json.load(open("results/validation-interleaved/calibration.json"))["transports"]
open("validation/calibration.json", "w").write(json.dumps(shipped, indent=2) + "\n")
EOF

# 3. The runs: the serial ones out (tracked files, then what .gitignore kept beside them), these in.
git rm -r -q --ignore-unmatch -- "$shipped/websearch-tcp-configB-*" "$shipped/iteration-cdfs-*"
rm -rf "$shipped"/websearch-tcp-configB-* "$shipped"/iteration-cdfs-*
git ls-files -- "$here/points" | cut -d/ -f4 | sort -u | while read -r run; do
    git mv "$here/points/$run" "$shipped/$run"
done

# 4. The report, which must find every run of the shipped command.
report=$(./flumen validate "${all[@]}" --out results/validation \
    --calibration validation/calibration.json "${budget[@]}" --report-only 2>&1 || true)
echo "$report"
counts=$(sed -n 's/.* \([0-9]*\) of \([0-9]*\) simulation runs finished.*/\1 \2/p' <<<"$report")
read -r finished planned <<<"${counts:-x y}"
[ "$finished" = "$planned" ] ||
    fail "the shipped command finds $finished of its $planned runs (its report above); the" \
        "changes so far are in git's index and working tree, for review"
git add "${manifests[@]}" validation/calibration.json results/validation
echo "land.sh: done, staged for review; then re-run the flow validation and update the docs" \
    "(README.md, step 3)"
