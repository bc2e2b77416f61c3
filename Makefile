# The two commands of the README. Each installs what it needs first (scripts/setup.sh).
.PHONY: demo test build bench serve
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
