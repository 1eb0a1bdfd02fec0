// Typed search attributes. Safe to import from workflow code (no Node built-ins).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const PauKind = defineSearchAttributeKey('PauKind', SearchAttributeType.KEYWORD);
export const PauRunId = defineSearchAttributeKey('PauRunId', SearchAttributeType.KEYWORD);
export const PauModel = defineSearchAttributeKey('PauModel', SearchAttributeType.KEYWORD);
export const PauMethodId = defineSearchAttributeKey('PauMethodId', SearchAttributeType.KEYWORD);
export const PauSplit = defineSearchAttributeKey('PauSplit', SearchAttributeType.KEYWORD);
/** A training run's current epoch (1-based, as text: the dev server registers every attribute as a keyword). */
export const PauEpoch = defineSearchAttributeKey('PauEpoch', SearchAttributeType.KEYWORD);
/** How an episode ended ('completed' | 'failed'): its workflow completes either way, so ExecutionStatus cannot tell. */
export const PauOutcome = defineSearchAttributeKey('PauOutcome', SearchAttributeType.KEYWORD);

/** Set while an episode waits out an outage of its model (the model's name); unset when it answers again. */
export const PauWaitingFor = defineSearchAttributeKey('PauWaitingFor', SearchAttributeType.KEYWORD);

/** Names and types as the dev server's `--search-attribute` flag wants them. */
export const SEARCH_ATTRIBUTE_NAMES = ['PauKind', 'PauRunId', 'PauModel', 'PauMethodId', 'PauSplit', 'PauOutcome', 'PauWaitingFor', 'PauEpoch'] as const;
