ALTER TABLE "datasets" ADD COLUMN "status" text DEFAULT 'building' NOT NULL;--> statement-breakpoint
ALTER TABLE "datasets" ADD COLUMN "workflow_id" text;--> statement-breakpoint
ALTER TABLE "datasets" ADD COLUMN "candidate_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "methods" ADD COLUMN "near_hash" text;--> statement-breakpoint
ALTER TABLE "methods" ADD COLUMN "gold_kind" text;--> statement-breakpoint
ALTER TABLE "methods" ADD COLUMN "probe_outputs" jsonb;--> statement-breakpoint
ALTER TABLE "methods" ADD COLUMN "heldout_outputs" jsonb;--> statement-breakpoint
ALTER TABLE "methods" ADD COLUMN "check_key" text;--> statement-breakpoint
ALTER TABLE "methods" ADD COLUMN "checked_at" timestamp with time zone;