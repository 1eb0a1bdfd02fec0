// The two shapes of a chat message: one we send (a prompt builder's output) and one a scripted model
// reads out of a request it was sent (the mock server's body: any role, any content, maybe tool calls).

/** A chat message as our prompt builders write it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A chat message as a scripted model reads it from a request: nothing about it is trusted. */
export interface RequestMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
}
