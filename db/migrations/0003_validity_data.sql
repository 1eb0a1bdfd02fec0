CREATE TABLE "reference_descriptions" (
	"method_id" text NOT NULL,
	"model" text NOT NULL,
	"prompt_version" text NOT NULL,
	"description" text NOT NULL,
	"coder_model" text NOT NULL,
	"code_match" double precision,
	"threshold" double precision NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"generated_code" text,
	"detail" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reference_descriptions_method_id_model_prompt_version_pk" PRIMARY KEY("method_id","model","prompt_version")
);
--> statement-breakpoint
ALTER TABLE "methods" ADD COLUMN "heldout_generated" jsonb;--> statement-breakpoint
ALTER TABLE "methods" ADD COLUMN "heldout_generated_outputs" jsonb;--> statement-breakpoint
ALTER TABLE "methods" ADD COLUMN "code_match_exclusion" text;--> statement-breakpoint
ALTER TABLE "methods" ADD COLUMN "behaviour_key" text;--> statement-breakpoint
ALTER TABLE "episodes" ADD COLUMN "in_context_k" integer;--> statement-breakpoint
ALTER TABLE "episodes" ADD COLUMN "in_context_examples" text;--> statement-breakpoint
ALTER TABLE "reference_descriptions" ADD CONSTRAINT "reference_descriptions_method_id_methods_id_fk" FOREIGN KEY ("method_id") REFERENCES "public"."methods"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reference_descriptions_status_idx" ON "reference_descriptions" USING btree ("method_id","status");