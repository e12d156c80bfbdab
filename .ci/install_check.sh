#!/usr/bin/env bash
# CI: risk_env installed as a dependency. Builds the sdist and, from it, the wheel;
# installs the wheel (not editable) with the extras train and cli in a fresh venv;
# then, from a folder outside the repository, runs the README's Python snippets,
# `risk-env --help` and a shipped training config loaded by name. Everything the
# package needs (maps, configs) must therefore be inside the wheel. Last, the wheel
# alone (the core, no extras) in another venv: the usage snippet runs, and a feature
# of a missing extra says which extra to install.
# Run after the README's test command (it uses .venv for the build).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failed=0

check() {  # check NAME COMMAND...: run it, print ok or FAIL with the end of its output
    local name=$1
    shift
    if "$@" >"$WORK/log" 2>&1; then
        echo "ok    $name"
    else
        echo "FAIL  $name"
        tail -n 15 "$WORK/log" | sed 's/^/      /'
        failed=1
    fi
}

echo "== build the sdist, then the wheel from it"
if ! .venv/bin/python -m build --outdir "$WORK/dist" . >"$WORK/build.log" 2>&1; then
    tail -n 30 "$WORK/build.log"
    exit 1
fi
ls "$WORK/dist"
WHEEL=$(ls "$WORK"/dist/*.whl)

echo "== install the wheel in a fresh venv"
python3 -m venv "$WORK/venv"
V="$WORK/venv/bin"
"$V/pip" install -q -c constraints.txt torch==2.13.0 || exit 1
"$V/pip" install -q -c constraints.txt "${WHEEL}[train,cli]" || exit 1

echo "== use it from outside the repository"
mkdir "$WORK/outside"
cd "$WORK/outside"
check "risk_env comes from the installed wheel, not the clone" \
    "$V/python" -c "import risk_env, sys; f = risk_env.__file__; print(f); sys.exit('$ROOT' in f or 'site-packages' not in f)"
"$V/python" - "$ROOT/README.md" "$WORK/outside" <<'PY'
import re, sys
readme, out = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
for name, code in re.findall(r"<!-- snippet: ([\w-]+) -->\s*```python\n(.*?)```", readme, re.S):
    open(f"{out}/snippet_{name}.py", "w", encoding="utf-8").write(code)
    print(f"README snippet: {name}")
PY
for f in snippet_*.py; do
    check "README $f" "$V/python" "$f"
done
check "the shipped maps" "$V/python" -c "import risk_env; [risk_env.env(map=m).reset(seed=0) for m in ('classic', 'small')]"
check "risk-env --help" "$V/risk-env" --help
check "the board as SVG (its assets ship in the wheel)" "$V/python" -c \
    "import risk_env; e = risk_env.env(setup='random'); e.reset(seed=0); assert e._repr_svg_().startswith('<svg')"
check "the pretrained agents ship in the wheel" "$V/python" -c "from risk_env.agents import PRETRAINED, load_agent; [load_agent(n) for n in PRETRAINED]"
check "risk-env train --config 4p (a shipped config, by name)" "$V/risk-env" train --config 4p --print-config

echo "== the core alone (no extras)"
python3 -m venv "$WORK/core"
C="$WORK/core/bin"
"$C/pip" install -q "$WHEEL" || exit 1
check "core: README snippet_usage.py" "$C/python" snippet_usage.py
check "core: risk_env.evaluate names the 'eval' extra" "$C/python" -c "
import risk_env
from risk_env.errors import MissingExtraError
try:
    risk_env.evaluate(['random', 'random'], num_games=2, workers=1)
except MissingExtraError as e:
    assert e.extra == 'eval' and \"pip install 'risk_env[eval]'\" in str(e), e
    print(e)
else:
    raise SystemExit('evaluate ran without its extra')
"
exit $failed
