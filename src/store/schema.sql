-- SPDX-License-Identifier: MIT
-- ------------------------------------------------------------------------
-- schema.sql: the nodus record store, the single source of its schema.
--
-- The file is a list of numbered migrations. Each starts with a line
-- "-- @migration N" (N = 1, 2, 3 ... in order) and runs, in one
-- transaction, every statement up to the next such line. A store at
-- version V gets the migrations V+1 ... latest applied, each adding a row to
-- schema_version. Migrations only append: an applied migration is never
-- edited, a change to the schema is a new migration at the end.
--
-- The file is embedded into the nodus binary at build time
-- (src/store/embed-schema.cmake); store.c never formats SQL from data.
--
-- Conventions: times are unix seconds (REAL, UTC); durations carry their
-- unit in the column name (_s seconds, _ns nanoseconds, _mhz megahertz);
-- hashes are 64 lowercase hex digits of SHA-256; a double that is NaN in C
-- is NULL here. Statuses and labels are stored by name; the CHECK lists
-- below must equal NODUS_STATUS_MAP and NODUS_LABEL_MAP in
-- include/nodus/nodus.h (tests/unit/test-store.c inserts every name).
-- ------------------------------------------------------------------------

-- @migration 1

-- Which migrations have been applied. The store's version is MAX(version).
CREATE TABLE schema_version (
	version INTEGER PRIMARY KEY NOT NULL,  -- migration number, 1-based
	applied_at REAL NOT NULL               -- when it was applied [unix s]
);

-- Sealed plans (nodus plan). One row per plan digest; the JSON text is
-- the plan document exactly as sealed, so a report can be made from the
-- store alone.
CREATE TABLE plans (
	digest TEXT PRIMARY KEY NOT NULL       -- SHA-256 of the plan's canonical JSON
		CHECK (length(digest) = 64),
	name TEXT NOT NULL,                    -- campaign name
	plan_json TEXT NOT NULL,               -- the plan document (JSON object)
	stored_at REAL NOT NULL                -- when it entered this store [unix s]
);

-- The pairs of a plan: (workload, candidate, reference), the unit of the
-- agreement statistics.
CREATE TABLE pairs (
	plan_digest TEXT NOT NULL REFERENCES plans(digest),  -- the plan it belongs to
	pair_id TEXT NOT NULL,                 -- WORKLOAD/CANDIDATE/REFERENCE
	task TEXT NOT NULL,                    -- task name
	workload TEXT NOT NULL,                -- workload name
	candidate TEXT NOT NULL,               -- candidate solution name
	reference TEXT NOT NULL,               -- reference solution name
	cand_hash TEXT,                        -- candidate's content hash, NULL if unknown
	ref_hash TEXT,                         -- reference's content hash, NULL if unknown
	expect TEXT                            -- truth known by construction, NULL if none:
		CHECK (expect IS NULL OR expect IN     -- a label, EQUIVALENT, FAIL or a status name
		       ('FASTER', 'SLOWER', 'TIED', 'AMBIGUOUS', 'EQUIVALENT', 'FAIL',
			'OK', 'COMPILE_ERROR', 'LOAD_ERROR', 'RUNTIME_ERROR',
			'TIMEOUT', 'CRASH', 'INCORRECT_SHAPE',
			'INCORRECT_NUMERICAL', 'INPUT_MUTATED', 'REWARD_HACK',
			'INVALID_REFERENCE', 'NOT_ISOLATED', 'OUT_OF_MEMORY')),
	PRIMARY KEY (plan_digest, pair_id)
);

-- The conditions of a plan: how the device is shared while a pair runs.
CREATE TABLE conditions (
	plan_digest TEXT NOT NULL REFERENCES plans(digest),  -- the plan it belongs to
	name TEXT NOT NULL,                    -- condition name, unique in the plan
	kind TEXT NOT NULL                     -- sharing mode (docs/formats.md)
		CHECK (kind IN ('isolated', 'cpu-stress', 'timeslice', 'mps',
				'streams', 'replay')),
	params_json TEXT,                      -- the condition object as declared, or NULL
	PRIMARY KEY (plan_digest, name)
);

-- Target fingerprints: hardware profile plus software stack a record ran
-- on. A record names its target by hash; the fingerprint may be absent.
CREATE TABLE targets (
	target_hash TEXT PRIMARY KEY NOT NULL  -- SHA-256 of the fingerprint's canonical JSON
		CHECK (length(target_hash) = 64),
	fingerprint_json TEXT NOT NULL,        -- JSON object: GPU/CPU, driver, compiler, OS...
	stored_at REAL NOT NULL                -- when it entered this store [unix s]
);

-- One row per attempt to evaluate one pair under one condition, failed
-- attempts included. Append-only (triggers below).
CREATE TABLE records (
	id INTEGER PRIMARY KEY,                -- insertion order; not stable across merges
	plan_digest TEXT NOT NULL REFERENCES plans(digest),  -- the plan it belongs to
	pair_id TEXT NOT NULL,                 -- pairs.pair_id
	condition TEXT NOT NULL,               -- conditions.name
	attempt INTEGER NOT NULL CHECK (attempt >= 1),  -- 1-based attempt number
	final INTEGER NOT NULL CHECK (final IN (0, 1)), -- 1: this attempt decides the pair-condition
	status TEXT NOT NULL                   -- how the attempt ended (NODUS_STATUS_MAP)
		CHECK (status IN ('OK', 'COMPILE_ERROR', 'LOAD_ERROR', 'RUNTIME_ERROR',
				  'TIMEOUT', 'CRASH', 'INCORRECT_SHAPE',
				  'INCORRECT_NUMERICAL', 'INPUT_MUTATED', 'REWARD_HACK',
				  'INVALID_REFERENCE', 'NOT_ISOLATED', 'OUT_OF_MEMORY')),
	guard TEXT NOT NULL DEFAULT '',        -- which guard fired (REWARD_HACK...), or ''
	label TEXT                             -- speedup label (NODUS_LABEL_MAP), NULL unless OK
		CHECK (label IS NULL OR (status = 'OK' AND
		       label IN ('FASTER', 'SLOWER', 'TIED', 'AMBIGUOUS'))),
	speedup REAL,                          -- reference time / candidate time, point estimate
	ci_lo REAL,                            -- lower bound of the speedup interval
	ci_hi REAL,                            -- upper bound of the speedup interval
	rounds INTEGER NOT NULL CHECK (rounds >= 0),  -- timing rounds measured
	looks INTEGER NOT NULL CHECK (looks >= 0),    -- sequential looks taken
	cand_ns_median REAL,                   -- median candidate sample [ns per call]
	ref_ns_median REAL,                    -- median reference sample [ns per call]
	max_abs_err REAL,                      -- worst absolute error over all checks
	max_rel_err REAL,                      -- worst relative error over all checks
	matched_ratio REAL,                    -- worst share of elements within tolerance, [0,1]
	device_s REAL,                         -- device time held by the worker [s]
	charge_share REAL                      -- share of device_s charged to this record, (0,1]
		CHECK (charge_share IS NULL OR (charge_share > 0 AND charge_share <= 1)),
	compile_s REAL,                        -- compile time for this record [s], 0 on cache hit
	compile_cache_hits INTEGER NOT NULL CHECK (compile_cache_hits >= 0),  -- solutions found in the cache
	validation_s REAL,                     -- correctness checking time [s]
	wall_s REAL,                           -- the whole attempt, wall clock [s]
	target_hash TEXT NOT NULL,             -- targets.target_hash of the machine it ran on
	message TEXT,                          -- human explanation, or NULL
	detail_json TEXT,                      -- JSON object: condition as run, isolation, seeds; or NULL
	started_at REAL,                       -- attempt start [unix s]
	finished_at REAL,                      -- attempt end [unix s]
	UNIQUE (plan_digest, pair_id, condition, attempt)
);

-- At most one final record per pair-condition.
CREATE UNIQUE INDEX records_one_final ON records (plan_digest, pair_id, condition)
	WHERE final = 1;

-- Raw timing samples of a record: one timed batch of calls of one solution.
CREATE TABLE samples (
	record_id INTEGER NOT NULL REFERENCES records(id),  -- the record they belong to
	round INTEGER NOT NULL CHECK (round >= 0),  -- round index, 0-based; the independent unit
	seq INTEGER NOT NULL CHECK (seq >= 0),      -- position within the round
	role INTEGER NOT NULL CHECK (role IN (0, 1)),  -- 0 = reference, 1 = candidate
	copy INTEGER NOT NULL CHECK (copy >= 0),    -- input copy used
	batch INTEGER NOT NULL CHECK (batch >= 1),  -- calls timed together in this sample
	flags INTEGER NOT NULL,                -- NODUS_SAMPLE_* bits: 1 host gap, 2 outlier
	ns INTEGER NOT NULL,                   -- time per call [ns] (CUDA event time on cuda)
	host_ns INTEGER NOT NULL,              -- host time around a device sync, per call [ns]; 0 on cpu
	sm_clock_mhz INTEGER NOT NULL          -- SM clock during the sample [MHz], 0 if unknown
);

CREATE INDEX samples_by_record ON samples (record_id);

-- Append-only: an attempt, once stored, is evidence; it is never changed.
CREATE TRIGGER records_no_update BEFORE UPDATE ON records
BEGIN
	SELECT RAISE(ABORT, 'records are append-only: update refused');
END;

CREATE TRIGGER records_no_delete BEFORE DELETE ON records
BEGIN
	SELECT RAISE(ABORT, 'records are append-only: delete refused');
END;

CREATE TRIGGER samples_no_update BEFORE UPDATE ON samples
BEGIN
	SELECT RAISE(ABORT, 'samples are append-only: update refused');
END;

CREATE TRIGGER samples_no_delete BEFORE DELETE ON samples
BEGIN
	SELECT RAISE(ABORT, 'samples are append-only: delete refused');
END;

-- @migration 2
-- A final NOT_ISOLATED record does not decide its pair-condition for good:
-- the isolation check failed because of load beside the pair, not because
-- of the pair, so `nodus run --resume` tries it again (docs/store.md). The
-- outcome of a pair-condition is its final record that is not NOT_ISOLATED,
-- or, while it has none, its latest final NOT_ISOLATED record. At most one
-- final record per pair-condition that is not NOT_ISOLATED.
DROP INDEX records_one_final;
CREATE UNIQUE INDEX records_one_final ON records (plan_digest, pair_id, condition)
	WHERE final = 1 AND status <> 'NOT_ISOLATED';

-- @migration 3
-- A condition judged by another harness's protocol (its judge_preset:
-- docs/protocol.md, "Presets") ends with a binary verdict, "faster" or not by
-- that protocol's rule, and no interval. It has a column of its own, so that
-- no reader takes it for an interval label: such a record's label is NULL.
-- NULL on every other record.
ALTER TABLE records ADD COLUMN verdict TEXT
	CHECK (verdict IS NULL OR (status = 'OK' AND label IS NULL AND
	       verdict IN ('BINARY_FASTER', 'BINARY_NOT_FASTER')));

-- @migration 4
-- `nodus serve` (docs/serve.md): the submissions it acknowledged and the
-- batches it sealed them into. A submission is inserted, and committed,
-- before its 202 acknowledgement; every later step moves its state forward
-- in a transaction of its own, so a server killed at any point restarts
-- from what is here: queued submissions are batched, sealed batches that
-- are not done are run again with `nodus run --resume` (a pair-condition
-- with a final record is not redone), and a submission becomes done, with
-- its result, exactly once. Neither table is touched by `nodus run`.

-- One batch: a campaign of queued submissions sealed into one plan.
CREATE TABLE serve_batches (
	id INTEGER PRIMARY KEY,                -- batch number, in sealing order
	plan_digest TEXT NOT NULL              -- plans.digest once run; the sealed plan's digest
		CHECK (length(plan_digest) = 64),
	plan_path TEXT NOT NULL,               -- the plan file (content-addressed directory beside the store)
	state TEXT NOT NULL                    -- sealed: not finished yet; done: results taken;
		CHECK (state IN ('sealed', 'done', 'failed')),  -- failed: the run failed max times
	run_failures INTEGER NOT NULL DEFAULT 0 -- runs of the plan that ended without completing
		CHECK (run_failures >= 0),
	message TEXT,                          -- why the last run failed, NULL if none
	sealed_at REAL NOT NULL,               -- when it was sealed [unix s]
	finished_at REAL                       -- when it became done or failed [unix s], NULL before
);

-- One acknowledged submission: a candidate judged against a workload and
-- reference of a base campaign, or a whole campaign sent with its files.
CREATE TABLE serve_submissions (
	id INTEGER PRIMARY KEY,                -- the submission id the client gets
	idem_key TEXT UNIQUE,                  -- client-supplied idempotency key, NULL if none
	body_sha256 TEXT NOT NULL              -- SHA-256 of the request body as received
		CHECK (length(body_sha256) = 64),
	kind TEXT NOT NULL                     -- candidate: one candidate against a base campaign;
		CHECK (kind IN ('candidate', 'campaign')),  -- campaign: a whole campaign, a batch alone
	campaign TEXT NOT NULL,                -- base campaign name (serve --campaign); of a
	                                       -- campaign submission, its own name
	workload TEXT,                         -- workload name in the base campaign (candidate)
	reference TEXT,                        -- reference solution name in the base campaign (candidate)
	label TEXT,                            -- the client's own tag for it, NULL if none
	solution_json TEXT,                    -- the candidate's solution object, sources inline (candidate)
	upload_path TEXT,                      -- the campaign file as written beside the store (campaign)
	state TEXT NOT NULL                    -- queued: waiting for a batch; batched: in a
		CHECK (state IN ('queued', 'batched', 'done', 'failed')),  -- sealed batch; done/failed: ended
	batch_id INTEGER REFERENCES serve_batches(id),  -- its batch, NULL while queued
	pair_id TEXT,                          -- its pair in the batch's plan, NULL while queued
	                                       -- (and for a campaign: every pair of its plan is its)
	result_json TEXT,                      -- the outcome per condition (docs/serve.md), NULL before done
	done_seq INTEGER UNIQUE,               -- order in which submissions ended (results?after=), NULL before
	submitted_at REAL NOT NULL,            -- when it was acknowledged [unix s]
	done_at REAL,                          -- when it ended [unix s], NULL before
	CHECK (state <> 'queued' OR batch_id IS NULL),
	CHECK (state <> 'batched' OR (batch_id IS NOT NULL AND (kind = 'campaign' OR pair_id IS NOT NULL))),
	CHECK ((kind = 'candidate') = (workload IS NOT NULL AND reference IS NOT NULL AND
				      solution_json IS NOT NULL AND upload_path IS NULL)),
	CHECK (kind = 'candidate' OR upload_path IS NOT NULL),
	CHECK ((state IN ('done', 'failed')) = (done_seq IS NOT NULL AND result_json IS NOT NULL))
);

CREATE INDEX serve_submissions_by_state ON serve_submissions (state, id);
