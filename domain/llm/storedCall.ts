// llm_calls.response as stored: the provider's chat completion, checked at what the cache reads back.
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { documentSchema } from '../common/jsonDocument';

export const storedCompletionSchema = documentSchema<ChatCompletion>({
  choices: z.array(z.looseObject({ message: z.looseObject({}) })),
});
