// LLM activities on `pau`: the generic one-completion activity (judges, code writers use it).
import type { Db } from '../../db/client';
import { makeLlmChat } from './activity';

export function createLlmActivities(db: () => Db) {
  return { llmChat: makeLlmChat(db) };
}
