CREATE TABLE "on_policy_critic_cards" (
	"card_key" text PRIMARY KEY NOT NULL,
	"critic" text NOT NULL,
	"format" text,
	"critic_params" jsonb NOT NULL,
	"prompt_version" text NOT NULL,
	"policy" text NOT NULL,
	"dataset" text NOT NULL,
	"split" text NOT NULL,
	"run_id" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"rollouts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"card" jsonb,
	"qualified" boolean,
	"workflow_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "on_policy_critic_cards" ADD CONSTRAINT "on_policy_critic_cards_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "on_policy_critic_cards_critic_idx" ON "on_policy_critic_cards" USING btree ("critic","dataset","policy");