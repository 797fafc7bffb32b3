/**
 * Server options from the option table's values (src/options.ts). Apart from the table so that the
 * table's declarations, which the library's public types (TableOptions) come from, do not pull in
 * the server's: a user's project type-checks them without @types/node.
 */
import type { CapacitySettings } from './capacity/admission.js';
import type { OptionValue, OptionValues, TopLevelSpec } from './options.js';
import type { ServerOptions } from './server/server.js';

/**
 * Server options from the table's values over `base`. The table's top-level names are
 * ServerOptions' names (checked below), except allowHosts and corsOrigins (browserAccess) and
 * inMemory, which the caller decides.
 */
export function applyOptionValues(base: ServerOptions, values: OptionValues): ServerOptions {
  const top: Record<string, OptionValue> = Object.fromEntries(values.top);
  const { allowHosts, corsOrigins, inMemory: _inMemory, ...direct } = top;
  const capacitySettings = values.capacitySettings.size === 0 ? base.capacitySettings : { ...base.capacitySettings, ...Object.fromEntries(values.capacitySettings) };
  return {
    ...base,
    ...(direct as Partial<ServerOptions>),
    browserAccess: {
      allowHosts: (allowHosts as readonly string[] | undefined) ?? base.browserAccess.allowHosts,
      corsOrigins: (corsOrigins as readonly string[] | undefined) ?? base.browserAccess.corsOrigins,
    },
    ...(capacitySettings === undefined ? {} : { capacitySettings: capacitySettings as Partial<CapacitySettings> }),
  };
}

// The table's top-level names are ServerOptions' own (or handled by applyOptionValues).
type UnmappedNames = Exclude<TopLevelSpec['name'] | 'inMemory', keyof ServerOptions | 'allowHosts' | 'corsOrigins'>;
const everyNameMaps: [UnmappedNames] extends [never] ? true : UnmappedNames = true;
void everyNameMaps;

