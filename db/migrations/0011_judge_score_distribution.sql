ALTER TABLE "judgments" ALTER COLUMN "score" SET DATA TYPE double precision;--> statement-breakpoint
ALTER TABLE "judgments" ADD COLUMN "score_detail" jsonb;