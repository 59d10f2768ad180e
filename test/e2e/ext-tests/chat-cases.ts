// The @team chat participant's cases (filled in with the participant).
import type { Case } from './index';

export const chatCases: Case[] = [];
