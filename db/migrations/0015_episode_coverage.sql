ALTER TABLE "episodes" ADD COLUMN "statement_coverage" double precision;--> statement-breakpoint
ALTER TABLE "episodes" ADD COLUMN "branch_coverage" double precision;