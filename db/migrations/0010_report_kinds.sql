ALTER TABLE "reports" ADD COLUMN "kind" text DEFAULT 'benchmark' NOT NULL;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "text" text;--> statement-breakpoint
CREATE INDEX "reports_run_kind_created_idx" ON "reports" USING btree ("run_id","kind","created_at");