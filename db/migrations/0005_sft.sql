CREATE TABLE "sft_datasets" (
	"name" text PRIMARY KEY NOT NULL,
	"teacher" text NOT NULL,
	"judge_model" text NOT NULL,
	"run_id" text NOT NULL,
	"config" jsonb NOT NULL,
	"summary" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "checkpoints" ADD COLUMN "job_id" text;--> statement-breakpoint
ALTER TABLE "checkpoints" ADD COLUMN "base_model" text;--> statement-breakpoint
ALTER TABLE "checkpoints" ADD COLUMN "parent_id" text;--> statement-breakpoint
ALTER TABLE "checkpoints" ADD COLUMN "adapter_path" text;--> statement-breakpoint
ALTER TABLE "checkpoints" ADD COLUMN "adapter_sha256" text;--> statement-breakpoint
ALTER TABLE "checkpoints" ADD COLUMN "gguf_path" text;--> statement-breakpoint
ALTER TABLE "checkpoints" ADD COLUMN "gguf_sha256" text;--> statement-breakpoint
ALTER TABLE "checkpoints" ADD COLUMN "config" jsonb;--> statement-breakpoint
ALTER TABLE "sft_examples" ADD COLUMN "dataset" text NOT NULL;--> statement-breakpoint
ALTER TABLE "sft_examples" ADD COLUMN "method_id" text NOT NULL;--> statement-breakpoint
ALTER TABLE "sft_examples" ADD COLUMN "source" text NOT NULL;--> statement-breakpoint
ALTER TABLE "sft_examples" ADD COLUMN "setting" text NOT NULL;--> statement-breakpoint
ALTER TABLE "sft_examples" ADD COLUMN "teacher" text NOT NULL;--> statement-breakpoint
ALTER TABLE "sft_examples" ADD COLUMN "judge_model" text NOT NULL;--> statement-breakpoint
ALTER TABLE "sft_examples" ADD COLUMN "tools" jsonb;--> statement-breakpoint
ALTER TABLE "sft_examples" ADD COLUMN "code_match" double precision;--> statement-breakpoint
ALTER TABLE "sft_examples" ADD COLUMN "tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sft_datasets" ADD CONSTRAINT "sft_datasets_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "checkpoints_job_uq" ON "checkpoints" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "sft_examples_dataset_idx" ON "sft_examples" USING btree ("dataset");