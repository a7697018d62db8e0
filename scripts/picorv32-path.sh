#!/usr/bin/env bash
# Print the path of picorv32.v from the pinned pythondata-cpu-picorv32 package
# (scripts/install-deps.sh installs it); fail loudly when it is missing.
set -euo pipefail
if ! path=$(python3 -c 'import os, pythondata_cpu_picorv32 as p; print(os.path.join(p.data_location, "picorv32.v"))' 2>/dev/null) \
   || [ ! -f "$path" ]; then
  echo "picorv32-path: the pythondata-cpu-picorv32 package is not installed (run: make deps)" >&2
  exit 1
fi
echo "$path"
