CREATE TABLE "blob_chunks" (
	"sha256" text NOT NULL,
	"idx" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "blob_chunks_sha256_idx_pk" PRIMARY KEY("sha256","idx")
);
--> statement-breakpoint
CREATE TABLE "blobs" (
	"sha256" text PRIMARY KEY NOT NULL,
	"bytes" bigint NOT NULL,
	"store" text NOT NULL,
	"chunk_bytes" integer NOT NULL,
	"chunks" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "checkpoint_files" (
	"checkpoint_id" text NOT NULL,
	"name" text NOT NULL,
	"sha256" text NOT NULL,
	"bytes" bigint NOT NULL,
	CONSTRAINT "checkpoint_files_checkpoint_id_name_pk" PRIMARY KEY("checkpoint_id","name")
);
--> statement-breakpoint
ALTER TABLE "blob_chunks" ADD CONSTRAINT "blob_chunks_sha256_blobs_sha256_fk" FOREIGN KEY ("sha256") REFERENCES "public"."blobs"("sha256") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkpoint_files" ADD CONSTRAINT "checkpoint_files_checkpoint_id_checkpoints_id_fk" FOREIGN KEY ("checkpoint_id") REFERENCES "public"."checkpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkpoint_files" ADD CONSTRAINT "checkpoint_files_sha256_blobs_sha256_fk" FOREIGN KEY ("sha256") REFERENCES "public"."blobs"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checkpoint_files_sha_idx" ON "checkpoint_files" USING btree ("sha256");