#!/usr/bin/env bash
# CI: risk_env installed as a dependency. Builds the sdist from the clone's files and, from it,
# the wheel, and fails on any build warning; installs the wheel (not editable) with the extras
# train and cli in a fresh venv; then, from a folder outside the repository, runs the README's
# Python snippets, `risk-env --help` and a shipped training config loaded by name. Everything the
# package needs (maps, configs) must therefore be inside the wheel. Then the wheel alone (the core,
# no extras) in another venv: the usage snippet runs, and a feature of a missing extra says which
# extra to install. Last, the unpacked sdist as a checkout: installed editable, the tests that read
# the repository's files (README, docs, scripts, records, CI scripts) pass in it.
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

echo "== build the sdist from the clone's files, then the wheel from it (a build warning fails)"
mkdir "$WORK/src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then  # tracked and new files, as a clean clone holds them
    git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$WORK/src"
else
    cp -r . "$WORK/src"
fi
if ! env -u PYTHONDONTWRITEBYTECODE .venv/bin/python -m build --no-isolation --outdir "$WORK/dist" "$WORK/src" >"$WORK/build.log" 2>&1; then
    tail -n 30 "$WORK/build.log"
    exit 1
fi
if grep -i "warning" "$WORK/build.log"; then
    echo "FAIL  the build printed the warnings above"
    exit 1
fi
echo "ok    built without a warning"
ls "$WORK/dist"
WHEEL=$(ls "$WORK"/dist/*.whl)
SDIST=$(ls "$WORK"/dist/*.tar.gz)

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
check "the page of risk-env serve ships in the wheel" "$V/python" -c \
    "import importlib.resources as r; assert all((r.files('risk_env.web') / 'static' / f).is_file() for f in ('index.html', 'play.js', 'play.css'))"
check "the pretrained agents ship in the wheel" "$V/python" -c "from risk_env.agents import PRETRAINED, load_agent; [load_agent(n) for n in PRETRAINED]"
check "risk-env train --config 4p (a shipped config, by name)" "$V/risk-env" train --config 4p --print-config
check "risk-env train --config device (the on-device recipe, by name)" "$V/risk-env" train --config device --print-config

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

echo "== the unpacked sdist as a checkout"
cd "$WORK"
tar -xzf "$SDIST"
UNPACKED=$(ls -d "$WORK"/risk_env-*/)
python3 -m venv --without-pip "$WORK/sdist-venv"  # the packages of .venv, and risk_env from the sdist
S="$WORK/sdist-venv/bin"
# .venv's package folders as plain paths: their own .pth files (the clone's editable risk_env) stay unread
"$ROOT/.venv/bin/python" -c "import sys; print('\n'.join(p for p in sys.path if p.endswith('site-packages')))" \
    >"$("$S/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/_ci_packages.pth"
"$S/python" -m pip install -q --no-deps --no-build-isolation -e "$UNPACKED" || exit 1
cd "$UNPACKED"
check "risk_env comes from the unpacked sdist" \
    "$S/python" -c "import risk_env.agents, sys; f = risk_env.agents.__file__; print(f); sys.exit(not f.startswith('$UNPACKED'))"
check "the tests that read the repository's files pass in the unpacked sdist" \
    "$S/python" -m pytest -q -p no:cacheprovider tests/test_readme.py tests/test_docs.py tests/test_cli_usability.py \
    tests/test_cli_frictions.py tests/test_record.py tests/test_extras.py
exit $failed
