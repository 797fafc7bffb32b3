/**
 * `dynatwin shards --partitions N [--values a=35,b=10] ...`: how many random shards K a GSI key
 * (or a hot key) needs over N partitions, computed exactly (shards.ts). Prints the smallest K from
 * which every larger K keeps the hottest partition under the threshold × its fair share with the
 * target probability, the shards per value, and the exact probabilities around it.
 */
import { parseSubcommand, usageError, type CommandIo } from './subcommand.js';
import { PARTITIONS_MAX, recommendShards, type ShardAnswer } from './shards.js';
import { setOwn } from '../model/own-members.js';

export const SHARDS_HELP = `Usage: dynatwin shards --partitions <N> [options]

How many random suffixes K a GSI partition key needs over N partitions: the probability that the
hottest partition carries more than --threshold times its fair share (1/N of the traffic) when the
K keys hash at random is computed exactly (summed over every placement, no sampling); the smallest
K from which every larger K stays under --target is recommended. With --values, the K shards are
shared among the values in proportion to their traffic (a hot "succeeded" gets more than a cold
"failed"), so every shard carries about as much.

Options:
  --partitions <N>        partitions of the GSI (1 .. ${PARTITIONS_MAX}); required
  --values <v=w,...>      values and their traffic weights, e.g. succeeded=35,ignored=35,failed=10
  --threshold <x>         overloaded: the hottest partition above x × its fair share (default 1.5)
  --target <p>            the probability of overload to stay under (default 0.05)
  --json                  print the answer as JSON
  --help                  print this help and exit
`;

export function runShardsCommand(argv: readonly string[], io: CommandIo = process): number {
  const usage = (message: string): number => usageError(io, 'shards', message);
  const options = {
    partitions: { type: 'string' },
    values: { type: 'string' },
    threshold: { type: 'string' },
    target: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const parsed = parseSubcommand('shards', argv, { options, help: SHARDS_HELP }, io);
  if (typeof parsed === 'number') return parsed;
  const flags = parsed.values;
  if (flags.partitions === undefined) return usage('--partitions is required, e.g. dynatwin shards --partitions 4');
  const number = (flag: string, text: string | undefined, fallback: number, check: (value: number) => boolean, rule: string): number => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value) || !check(value)) throw new RangeError(`--${flag} must be ${rule}, got ${JSON.stringify(text)}`);
    return value;
  };
  let answer: ShardAnswer;
  try {
    const weights = flags.values === undefined ? undefined : parseValues(flags.values);
    answer = recommendShards({
      partitions: number('partitions', flags.partitions, 1, (v) => Number.isInteger(v) && v >= 1 && v <= PARTITIONS_MAX, `a whole number from 1 to ${PARTITIONS_MAX}`),
      threshold: number('threshold', flags.threshold, 1.5, (v) => v > 1 && v <= 100, 'a number above 1 (at most 100)'),
      target: number('target', flags.target, 0.05, (v) => v > 0 && v < 1, 'a probability between 0 and 1'),
      ...(weights === undefined ? {} : { weights }),
    });
  } catch (error) {
    if (error instanceof RangeError) return usage(error.message);
    throw error;
  }
  io.stdout.write(flags.json ? JSON.stringify(answer) + '\n' : formatAnswer(answer));
  return 0;
}

/** `a=35,b=10`: values and weights; a value without `=w` weighs 1. */
function parseValues(text: string): Record<string, number> {
  const weights: Record<string, number> = {};
  for (const entry of text.split(',')) {
    const [value, weightText] = entry.split('=');
    if (value === undefined || value.trim() === '') throw new RangeError(`--values: an empty value in ${JSON.stringify(text)}`);
    const weight = weightText === undefined ? 1 : Number(weightText);
    if (!Number.isFinite(weight) || weight <= 0) throw new RangeError(`--values: the weight of '${value}' must be a number above 0, got ${JSON.stringify(weightText)}`);
    if (Object.hasOwn(weights, value.trim())) throw new RangeError(`--values: '${value.trim()}' is given twice`);
    setOwn(weights, value.trim(), weight);
  }
  return weights;
}

function formatAnswer(answer: ShardAnswer): string {
  const lines = [
    `Over ${answer.partitions} partition${answer.partitions === 1 ? '' : 's'}, K = ${answer.recommendedShards} random shard${answer.recommendedShards === 1 ? '' : 's'} keep the hottest partition at most ${answer.threshold}× its fair share ` +
      `with probability ${percent(1 - answer.probability)} (overloaded with probability ${percent(answer.probability)}, computed exactly; every larger K stays under ${percent(answer.target)}).`,
  ];
  const values = Object.entries(answer.shardsPerValue);
  if (values.length > 1 || values[0]?.[0] !== 'value') {
    lines.push('Shards per value:');
    for (const [value, count] of values) lines.push(`  ${value}: ${count} (${value}#1 .. ${value}#${count})`);
  }
  lines.push('K and the exact probability of overload:');
  for (const { shards, probability } of answer.probabilities) lines.push(`  K = ${String(shards).padStart(6)}  ${percent(probability).padStart(6)}`);
  return lines.join('\n') + '\n';
}

function percent(share: number): string {
  return `${Math.round(share * 10000) / 100}%`;
}
