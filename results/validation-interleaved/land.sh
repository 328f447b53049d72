#!/bin/bash
# Lands the interleaved re-run (README.md, "Land it", steps 1 and 2): the key into the two
# manifests' scenario, the refitted TCP ceiling into validation/calibration.json, these runs in
# place of the TCP series' serial runs in results/validation/points, and the report rewritten.
# Refuses to start unless every run of the two manifests is here; run from the project root.
set -euo pipefail
here=results/validation-interleaved
manifests="validation/manifests/websearch-tcp-configB.json validation/manifests/iteration-cdfs.json"
all="validation/manifests/iperf-rdma-configA.json validation/manifests/iteration-cdfs.json \
validation/manifests/websearch-rdma-configB.json validation/manifests/websearch-tcp-configB.json"
test -f "$here/land.sh" || { echo "land.sh: run it from the project root" >&2; exit 2; }

# Every run of the two manifests, planned as the re-run plans them, must be done here.
report=$(./flumen validate $manifests --set job.tcp.interleave_stripes=true --out "$here" \
    --calibration "$here/calibration.json" --max-sim-s 4 --budget-iterations 5 --report-only \
    2>&1 || true)
finished=$(sed -n 's/.* \([0-9]*\) of \([0-9]*\) simulation runs finished.*/\1 \2/p' <<<"$report")
read -r done planned <<<"$finished"
if [ -z "$done" ] || [ "$done" != "$planned" ]; then
    echo "land.sh: not every run is done here (${done:-?} of ${planned:-?}); continue the re-run" >&2
    exit 1
fi

python3 - $manifests <<'EOF'
import json, sys
for path in sys.argv[1:]:
    m = json.load(open(path))
    m.setdefault("scenario", {}).setdefault("job", {}).setdefault("tcp", {})["interleave_stripes"] = True
    open(path, "w").write(json.dumps(m, indent=2, ensure_ascii=False) + "\n")
shipped = json.load(open("validation/calibration.json"))
refit = json.load(open("results/validation-interleaved/calibration.json"))
assert shipped["models"] == refit["models"], "the profiles differ: refit the ceiling again"
shipped["transports"] = refit["transports"]
open("validation/calibration.json", "w").write(json.dumps(shipped, indent=2) + "\n")
EOF

git rm -r -q results/validation/points/websearch-tcp-configB-* results/validation/points/iteration-cdfs-*
for d in "$here"/points/*/; do
    git mv "$d" results/validation/points/
done
./flumen validate $all --out results/validation --calibration validation/calibration.json \
    --max-sim-s 4 --budget-iterations 5 --report-only
echo "land.sh: done; re-run the flow validation and update the docs (README.md, step 3)"
