CREATE TABLE "dataset_methods" (
	"dataset_name" text NOT NULL,
	"method_id" text NOT NULL,
	"split" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "dataset_methods_dataset_name_method_id_pk" PRIMARY KEY("dataset_name","method_id")
);
--> statement-breakpoint
CREATE TABLE "datasets" (
	"name" text PRIMARY KEY NOT NULL,
	"content_hash" text NOT NULL,
	"config" jsonb NOT NULL,
	"summary" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "methods" (
	"id" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"source_id" text NOT NULL,
	"entry_point" text,
	"signature" text,
	"code" text NOT NULL,
	"code_hash" text,
	"gold_description" text,
	"probe_inputs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"heldout_inputs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"verdict" text DEFAULT 'pending' NOT NULL,
	"reject_reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"meta" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "episodes" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"method_id" text NOT NULL,
	"model" text NOT NULL,
	"setting" text NOT NULL,
	"sample" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"final_description" text,
	"end_reason" text,
	"error" text,
	"calls_made" integer DEFAULT 0 NOT NULL,
	"tokens_in" integer DEFAULT 0 NOT NULL,
	"tokens_out" integer DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	"workflow_id" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "judgments" (
	"episode_id" text NOT NULL,
	"judge_model" text NOT NULL,
	"score" integer,
	"unparsable" integer DEFAULT 0 NOT NULL,
	"rationale" text,
	"generated_code" text,
	"code_match" double precision,
	"statement_coverage" double precision,
	"branch_coverage" double precision,
	"diagnostics" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "judgments_episode_id_judge_model_pk" PRIMARY KEY("episode_id","judge_model")
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"config" jsonb NOT NULL,
	"workflow_id" text,
	"summary" jsonb,
	"error" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "steps" (
	"episode_id" text NOT NULL,
	"idx" integer NOT NULL,
	"kind" text NOT NULL,
	"agent_message" jsonb,
	"call" jsonb,
	"observation" jsonb,
	"tokens_in" integer DEFAULT 0 NOT NULL,
	"tokens_out" integer DEFAULT 0 NOT NULL,
	"critic_reward" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "steps_episode_id_idx_pk" PRIMARY KEY("episode_id","idx")
);
--> statement-breakpoint
CREATE TABLE "llm_calls" (
	"request_hash" text PRIMARY KEY NOT NULL,
	"model" text NOT NULL,
	"request" jsonb NOT NULL,
	"response" jsonb,
	"tokens_in" integer DEFAULT 0 NOT NULL,
	"tokens_out" integer DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	"latency_ms" integer DEFAULT 0 NOT NULL,
	"cache_hits" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "checkpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"epoch" integer NOT NULL,
	"path" text NOT NULL,
	"metrics" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sft_examples" (
	"run_id" text NOT NULL,
	"episode_id" text NOT NULL,
	"messages" jsonb NOT NULL,
	"score" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sft_examples_run_id_episode_id_pk" PRIMARY KEY("run_id","episode_id")
);
--> statement-breakpoint
CREATE TABLE "training_epochs" (
	"run_id" text NOT NULL,
	"epoch" integer NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"metrics" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "training_epochs_run_id_epoch_pk" PRIMARY KEY("run_id","epoch")
);
--> statement-breakpoint
CREATE TABLE "doctor_checks" (
	"workflow_id" text NOT NULL,
	"part" text NOT NULL,
	"ok" boolean NOT NULL,
	"detail" jsonb,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "doctor_checks_workflow_id_part_pk" PRIMARY KEY("workflow_id","part")
);
--> statement-breakpoint
ALTER TABLE "dataset_methods" ADD CONSTRAINT "dataset_methods_dataset_name_datasets_name_fk" FOREIGN KEY ("dataset_name") REFERENCES "public"."datasets"("name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dataset_methods" ADD CONSTRAINT "dataset_methods_method_id_methods_id_fk" FOREIGN KEY ("method_id") REFERENCES "public"."methods"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "episodes" ADD CONSTRAINT "episodes_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "judgments" ADD CONSTRAINT "judgments_episode_id_episodes_id_fk" FOREIGN KEY ("episode_id") REFERENCES "public"."episodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "steps" ADD CONSTRAINT "steps_episode_id_episodes_id_fk" FOREIGN KEY ("episode_id") REFERENCES "public"."episodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkpoints" ADD CONSTRAINT "checkpoints_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sft_examples" ADD CONSTRAINT "sft_examples_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "training_epochs" ADD CONSTRAINT "training_epochs_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dataset_methods_split_idx" ON "dataset_methods" USING btree ("dataset_name","split");--> statement-breakpoint
CREATE INDEX "methods_source_idx" ON "methods" USING btree ("source","source_id");--> statement-breakpoint
CREATE INDEX "methods_verdict_idx" ON "methods" USING btree ("verdict");--> statement-breakpoint
CREATE UNIQUE INDEX "episodes_identity_uq" ON "episodes" USING btree ("run_id","method_id","model","setting","sample");--> statement-breakpoint
CREATE INDEX "episodes_run_status_idx" ON "episodes" USING btree ("run_id","status");--> statement-breakpoint
CREATE INDEX "runs_kind_created_idx" ON "runs" USING btree ("kind","created_at");--> statement-breakpoint
CREATE INDEX "llm_calls_model_created_idx" ON "llm_calls" USING btree ("model","created_at");