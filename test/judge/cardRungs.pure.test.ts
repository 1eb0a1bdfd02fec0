// The judge card's partial rung (domain/judge/cardRungs.ts).
import { describe, expect, it } from 'vitest';
import { partialDescription } from '../../domain/judge/cardRungs';

describe('partialDescription', () => {
  it('is the first sentence, or the first half of a one-sentence description', () => {
    expect(partialDescription('Adds two numbers. Returns their sum as an int.')).toBe('Adds two numbers.');
    expect(partialDescription('returns the sum of the two numbers a and b')).toBe('returns the sum of the');
  });
});
