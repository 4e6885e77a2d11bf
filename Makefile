# Reverie: `make run` serves on http://127.0.0.1:8080; `make test` runs every test.
# Both install what is missing first (scripts/bootstrap.sh).

SWIFT ?= swift
HOST ?= 127.0.0.1
PORT ?= 8080
TLS_PORT ?= 8443
SERVERS ?= 1

.PHONY: run run-front build test test-swift test-e2e test-robustness fuzz bench bootstrap clean
FUZZ_SECONDS ?= 60

run: ## install what is missing, build in release mode, serve on http://$(HOST):$(PORT)
	@scripts/bootstrap.sh run
	$(SWIFT) build -c release --product reverie
	.build/release/reverie serve --host $(HOST) --port $(PORT)

run-front: ## Reverie behind nginx (deploy/nginx/) on http://$(HOST):$(PORT) and https://$(HOST):$(TLS_PORT); SERVERS=2 needs DATABASE_URL on PostgreSQL
	@scripts/bootstrap.sh front
	$(SWIFT) build -c release --product reverie
	REVERIE_BINARY=.build/release/reverie scripts/front.sh --servers $(SERVERS) --host $(HOST) --port $(PORT) --tls-port $(TLS_PORT)

build: ## debug build of everything, tests included
	$(SWIFT) build --build-tests

test: ## Swift tests on SQLite and a throwaway PostgreSQL, then the browser tests
	@scripts/bootstrap.sh test
	@scripts/test.sh all

test-swift: ## only the Swift tests (SQLite and PostgreSQL)
	@scripts/bootstrap.sh test
	@scripts/test.sh swift

test-robustness: ## fuzz corpora once, then schemathesis against every documented route
	@scripts/bootstrap.sh test
	@scripts/test.sh robustness

fuzz: ## each libFuzzer harness for FUZZ_SECONDS (default 60); crashes land in .build/fuzz/
	@scripts/bootstrap.sh run
	@scripts/fuzz.sh run $(FUZZ_SECONDS)

test-e2e: ## only the browser tests (builds the server first)
	@scripts/bootstrap.sh test
	@scripts/test.sh e2e

bench: ## figures side by side with peers (release build of the benchmark tools)
	@scripts/bootstrap.sh bench
	$(SWIFT) build -c release --product speech-bench
	$(SWIFT) build -c release --product reverie
	$(SWIFT) build -c release --product rhymes-bench
	.build/release/speech-bench
	@echo
	.venv/bin/python Benchmarks/speech_pipeline.py --binary .build/release/reverie
	@echo
	.build/release/rhymes-bench
	@echo
	.venv/bin/python Benchmarks/offline_rhymes.py --binary .build/release/reverie
	@echo
	.venv/bin/python Benchmarks/first_sound.py --binary .build/release/reverie
	@echo
	.venv/bin/python Benchmarks/load.py --binary .build/release/reverie
	@echo
	.venv/bin/python Benchmarks/progress.py --binary .build/release/reverie
	@echo
	.venv/bin/python Benchmarks/media.py --binary .build/release/reverie
	@echo
	.venv/bin/python Benchmarks/front.py --binary .build/release/reverie
	@echo
	.venv/bin/python Benchmarks/chapters.py --binary .build/release/reverie
	@echo
	.venv/bin/python Benchmarks/upload.py --binary .build/release/reverie
	@echo
	.venv/bin/python Benchmarks/feeds.py --binary .build/release/reverie
	@echo
	.venv/bin/python Benchmarks/episode_actions.py --binary .build/release/reverie
	@echo
	.venv/bin/python Benchmarks/levelling.py --binary .build/release/reverie
	@echo
	.venv/bin/python Benchmarks/articles.py --binary .build/release/reverie

bootstrap: ## install system packages and .venv for running and testing
	@scripts/bootstrap.sh test

clean:
	rm -rf .build e2e/artifacts
