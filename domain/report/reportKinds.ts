// The kinds of stored report (`reports.kind`, migration 0010): one producer (activities/report/produceReport.ts)
// and one table for all three; each kind has its pure renderer in domain/report/. Pure.
export const REPORT_KINDS = ['benchmark', 'sft', 'grpo'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
