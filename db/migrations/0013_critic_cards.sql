CREATE TABLE "critic_cards" (
	"card_key" text PRIMARY KEY NOT NULL,
	"critic_model" text NOT NULL,
	"critic_params" jsonb NOT NULL,
	"prompt_version" text NOT NULL,
	"dataset" text NOT NULL,
	"split" text NOT NULL,
	"run_id" text,
	"status" text DEFAULT 'running' NOT NULL,
	"episodes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"card" jsonb,
	"qualified" boolean,
	"workflow_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "critic_cards_model_idx" ON "critic_cards" USING btree ("critic_model","dataset");