ALTER TABLE "episodes" ADD COLUMN "waiting_for" text;--> statement-breakpoint
ALTER TABLE "episodes" ADD COLUMN "waiting_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "episodes" ADD COLUMN "wait_error" text;--> statement-breakpoint
ALTER TABLE "llm_calls" ADD COLUMN "state" text DEFAULT 'completed' NOT NULL;--> statement-breakpoint
ALTER TABLE "llm_calls" ADD COLUMN "call_key" text;--> statement-breakpoint
ALTER TABLE "llm_calls" ADD COLUMN "sends" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "llm_calls" ADD COLUMN "resent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "llm_calls" ADD COLUMN "error" text;