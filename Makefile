# The two commands of the README. Each installs what it needs first (scripts/setup.sh).
.PHONY: demo test build bench serve fuzz
demo: build
	node scripts/demo.mjs $(ARGS)
test:
	bash scripts/test.sh
build:
	bash scripts/build.sh
bench: build
	node benches/repair.bench.mjs --write
	node benches/store.bench.mjs --write
	node benches/history.bench.mjs --write
	node benches/project.bench.mjs --write
serve: build
	node scripts/serve.mjs --port 8080 $(ARGS)
# The long runs of what `make test` smokes (issue 14): every cargo-fuzz target of the core
# (fuzz/) for FUZZ_SECONDS each (installs cargo-fuzz first), then against the built package the
# bad-input sweep, the property tests and the FileLog SIGKILL test at full counts.
FUZZ_SECONDS ?= 60
fuzz: build
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh
	SWEEP_ITERATIONS=200000 node --test tests/js/sweep.test.mjs
	PROPS_CASES=5000 node --test tests/js/boundary-props.test.mjs
	FILELOG_KILLS=500 node --test tests/js/filelog-kill.test.mjs
