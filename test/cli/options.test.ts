import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatThreshold, parseThreshold } from '../../core/evals/threshold.js';
import { configPath, readConfigFile, resolveCredentials, writeConfigFile } from '../../cli/config.js';
import { parseMinScore } from '../../cli/options.js';

describe('threshold validation (SPEC "Client-side and CLI errors")', () => {
  it('takes a fraction or a percentage', () => {
    const read: Array<[string, number]> = [
      ['0.05', 0.05],
      ['5%', 0.05],
      [' 12.5 % ', 0.125],
      ['100%', 1],
      ['1', 1],
      ['.5', 0.5],
    ];
    for (const [text, threshold] of read) expect(parseThreshold(text), text).toBe(threshold);
    expect(formatThreshold(0.05)).toBe('5%');
  });

  it('refuses an empty value', () => {
    expect(() => parseThreshold('')).toThrow('Threshold value cannot be empty');
    expect(() => parseThreshold('   ')).toThrow('Threshold value cannot be empty');
  });

  it('refuses what is neither a number nor a percentage', () => {
    for (const bad of ['abc', '5%%', '%', '0x10', '1,5', 'Infinity', 'NaN', '5 %x'])
      expect(() => parseThreshold(bad)).toThrow(`Invalid threshold value: "${bad}"`);
  });

  it('must be positive and at most 100%', () => {
    expect(() => parseThreshold('0')).toThrow('Threshold must be positive');
    expect(() => parseThreshold('-0.1')).toThrow('Threshold must be positive');
    expect(() => parseThreshold('0%')).toThrow('Threshold must be positive');
    expect(() => parseThreshold('101%')).toThrow('Threshold cannot exceed 100%');
    expect(() => parseThreshold('1.5')).toThrow('Threshold cannot exceed 100%');
  });
});

describe('--min-score', () => {
  it('is a score 0..1 or a percentage', () => {
    expect(parseMinScore('0.8')).toBe(0.8);
    expect(parseMinScore('80%')).toBe(0.8);
    expect(parseMinScore(undefined)).toBeUndefined();
    for (const bad of ['', '1.2', '-1', 'x', '%']) expect(() => parseMinScore(bad)).toThrow('--min-score must be a number between 0 and 1');
  });
});

describe('the CLI config file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-eval-cli-config-'));

  it('lives at $AGENT_EVAL_CONFIG, else under XDG_CONFIG_HOME or ~/.config', () => {
    expect(configPath({ AGENT_EVAL_CONFIG: '/x/y.json' })).toBe('/x/y.json');
    expect(configPath({ XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/agent-eval/config.json');
    expect(configPath({ HOME: '/home/u' })).toBe('/home/u/.config/agent-eval/config.json');
  });

  it('is written with mode 0600, in a directory created 0700', () => {
    const file = path.join(dir, 'nested', 'config.json');
    writeConfigFile(file, { url: 'http://h:1', api_key: 'ae_live_x' });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readConfigFile(file)).toEqual({ url: 'http://h:1', api_key: 'ae_live_x' });
    // Rewriting an existing file keeps it private.
    fs.chmodSync(file, 0o644);
    writeConfigFile(file, { url: 'http://h:2', api_key: 'ae_live_y' });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['config.json']);
  });

  it('is overridden field by field by the environment; no key anywhere is Not authenticated', () => {
    const file = path.join(dir, 'c.json');
    writeConfigFile(file, { url: 'http://file:1/', api_key: 'file-key' });
    expect(resolveCredentials({ AGENT_EVAL_CONFIG: file })).toEqual({ url: 'http://file:1', apiKey: 'file-key', project: undefined });
    expect(resolveCredentials({ AGENT_EVAL_CONFIG: file, AGENT_EVAL_API_KEY: 'env-key' })).toMatchObject({ url: 'http://file:1', apiKey: 'env-key' });
    expect(resolveCredentials({ AGENT_EVAL_CONFIG: file, AGENT_EVAL_URL: 'https://env:2' })).toMatchObject({ url: 'https://env:2', apiKey: 'file-key' });
    expect(() => resolveCredentials({ AGENT_EVAL_CONFIG: path.join(dir, 'none.json') })).toThrow('Not authenticated');
    expect(() => resolveCredentials({ AGENT_EVAL_CONFIG: path.join(dir, 'none.json'), AGENT_EVAL_API_KEY: ' ' })).toThrow('Not authenticated');
    expect(resolveCredentials({ AGENT_EVAL_CONFIG: path.join(dir, 'none.json'), AGENT_EVAL_API_KEY: 'k' }).url).toBe('http://localhost:3000');
  });
});
