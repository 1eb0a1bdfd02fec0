CREATE TABLE "exec_critic_steps" (
	"step_key" text PRIMARY KEY NOT NULL,
	"method_id" text NOT NULL,
	"version" text NOT NULL,
	"rating" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "exec_critic_steps_method_idx" ON "exec_critic_steps" USING btree ("method_id");