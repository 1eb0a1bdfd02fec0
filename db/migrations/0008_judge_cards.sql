CREATE TABLE "judge_cards" (
	"card_key" text PRIMARY KEY NOT NULL,
	"judge_model" text NOT NULL,
	"coder_model" text NOT NULL,
	"judge_params" jsonb NOT NULL,
	"coder_params" jsonb NOT NULL,
	"prompt_version" text NOT NULL,
	"dataset" text NOT NULL,
	"split" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"rows" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"card" jsonb,
	"judge_qualified" boolean,
	"coder_qualified" boolean,
	"workflow_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "judge_cards_models_idx" ON "judge_cards" USING btree ("judge_model","coder_model","dataset");