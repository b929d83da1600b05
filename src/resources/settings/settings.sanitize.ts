import { type SettingValue } from '../../registry/settings.js';

// `esc_html` without double-encoding: an entity already written stays as it is.
const HTML_SPECIALS = /&(?![A-Za-z][A-Za-z0-9]*;|#\d+;|#x[0-9A-Fa-f]+;)|[<>"']/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' };

/** WordPress's `sanitize_option` for the settings it alters: the site title and tagline are stored HTML-escaped. */
export function sanitizeOption(option: string, value: SettingValue): SettingValue {
  switch (option) {
    case 'blogname':
    case 'blogdescription':
      return String(value).replace(HTML_SPECIALS, (char) => ENTITIES[char]);
    default:
      return value;
  }
}
