import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, startServiceOn, type TestApp } from '../support/test-app.js';

type Headers = Record<string, string>;

let app: TestApp;
let editor: Headers;
let subscriber: Headers;

beforeAll(async () => {
  app = await createTestApp();
  editor = (await app.asRole('editor')).headers;
  subscriber = (await app.asRole('subscriber')).headers;
});
afterAll(async () => {
  await app?.stop();
});

const refusal = (code: string, message: string, status: number) => ({ code, message, data: { status } });
const install = (slug: string, extra: Record<string, unknown> = {}, headers: Headers = app.admin) =>
  app.api('POST', '/cms/v2/plugins', { headers, json: { slug, ...extra } });
const storedPlugins = () => app.deps.store.db.collection<{ _id: string; status: string }>('plugins').find({}).toArray();
const blockNames = async (headers: Headers = app.admin) => {
  const response = await app.api('GET', '/cms/v2/block-types', { headers, query: { _fields: 'name' } });
  expect(response.status).toBe(200);
  return (response.body as { name: string }[]).map((block) => block.name);
};

describe('installing from the default plugin directory', () => {
  it('starts with no plugin installed', async () => {
    const { status, body, headers } = await app.api('GET', '/cms/v2/plugins', { headers: app.admin });
    expect(status).toBe(200);
    expect(body).toEqual([]);
    expect(headers.get('x-wp-total')).toBeNull();
  });

  it('installs a package by slug: 201, Location, the plugin with every header field, inactive by default', async () => {
    const { status, body, headers } = await install('reading-time');
    expect(status).toBe(201);
    expect(headers.get('location')).toBe(`${app.apiRoot}/cms/v2/plugins/reading-time/reading-time`);
    expect(body).toEqual({
      plugin: 'reading-time/reading-time',
      status: 'inactive',
      name: 'Reading Time',
      plugin_uri: '',
      author: 'Grace Hopper',
      author_uri: '',
      description: { raw: 'Estimates how long a post takes to read.', rendered: 'Estimates how long a post takes to read. <cite>By Grace Hopper.</cite>' },
      version: '2.0.3',
      network_only: false,
      requires_cms: '',
      requires_runtime: '',
      textdomain: 'reading-time',
      _links: { self: [{ href: `${app.apiRoot}/cms/v2/plugins/reading-time/reading-time` }] },
    });
    const stored = await storedPlugins();
    expect(stored.map((doc) => [doc._id, doc.status])).toEqual([['reading-time/reading-time', 'inactive']]);
  });

  it('links the author to its website in the rendered description, and ignores context', async () => {
    expect((await install('hello-blocks')).status).toBe(201);
    const { status, body } = await app.api('GET', '/cms/v2/plugins/hello-blocks/hello-blocks', { headers: app.admin, query: { context: 'embed' } });
    expect(status).toBe(200);
    expect(body.description.rendered).toBe(
      'Two blocks for friendly pages: a greeting, and a notice the server renders. <cite>By <a href="https://example.org/">The CMS Project</a>.</cite>',
    );
    // WordPress's plugins controller filters nothing by context: view/edit-only fields show in embed too.
    expect(Object.keys(body)).toEqual([
      'plugin', 'status', 'name', 'plugin_uri', 'author', 'author_uri', 'description', 'version',
      'network_only', 'requires_cms', 'requires_runtime', 'textdomain', '_links',
    ]);
    expect(body.requires_cms).toBe('0.1');
  });

  it('refuses a slug already installed with folder_exists, storing nothing more', async () => {
    const { status, body } = await install('reading-time');
    expect(status).toBe(400);
    expect(body).toEqual(refusal('folder_exists', 'Destination folder already exists.', 400));
    expect((await storedPlugins()).filter((doc) => doc._id === 'reading-time/reading-time')).toHaveLength(1);
  });

  it('answers an unknown slug with 404 plugins_api_failed', async () => {
    const { status, body } = await install('no-such-plugin');
    expect(status).toBe(404);
    expect(body).toEqual(refusal('plugins_api_failed', 'Plugin not found.', 404));
  });

  it('refuses slugs that could leave the plugin directory before touching it', async () => {
    for (const slug of ['../plugin-directory/hello-blocks', '..', 'hello-blocks/../reading-time', '/etc', 'a\\b', '.hidden', 'hello-blocks/blocks', '']) {
      const { status, body } = await install(slug);
      expect(status, slug).toBe(400);
      expect(body.code, slug).toBe('rest_invalid_param');
      expect(Object.keys(body.data.params), slug).toEqual(['slug']);
    }
    expect((await install('x'.repeat(101))).status).toBe(400);
    expect((await storedPlugins()).map((doc) => doc._id).sort()).toEqual(['hello-blocks/hello-blocks', 'reading-time/reading-time']);
  });

  it('requires a slug, and refuses a status that is not inactive or active', async () => {
    const missing = await app.api('POST', '/cms/v2/plugins', { headers: app.admin, json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('rest_missing_callback_param');
    const network = await install('network-tools', { status: 'network-active' });
    expect(network.status).toBe(400);
    expect(network.body.code).toBe('rest_invalid_param');
  });

  it('of two installs of one slug at once, stores one and answers the other folder_exists', async () => {
    const answers = await Promise.all([install('network-tools'), install('network-tools'), install('network-tools')]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 400, 400]);
    for (const answer of answers.filter((a) => a.status === 400)) expect(answer.body.code).toBe('folder_exists');
    expect((await storedPlugins()).filter((doc) => doc._id === 'network-tools/network-tools')).toHaveLength(1);
  });
});

describe('reading plugins', () => {
  it('lists in install order, filtered by status and by a case-sensitive search of the header values', async () => {
    const all = await app.api('GET', '/cms/v2/plugins', { headers: app.admin });
    expect(all.body.map((p: { plugin: string }) => p.plugin)).toEqual(['reading-time/reading-time', 'hello-blocks/hello-blocks', 'network-tools/network-tools']);
    const search = async (term: string) =>
      (await app.api('GET', '/cms/v2/plugins', { headers: app.admin, query: { search: term } })).body.map((p: { plugin: string }) => p.plugin);
    expect(await search('Hopper')).toEqual(['reading-time/reading-time']);
    expect(await search('hopper')).toEqual([]);
    expect(await search('example.org')).toEqual(['hello-blocks/hello-blocks', 'network-tools/network-tools']);
    const inactive = await app.api('GET', '/cms/v2/plugins', { headers: app.admin, query: { status: ['inactive'] } });
    expect(inactive.body).toHaveLength(3);
    const active = await app.api('GET', '/cms/v2/plugins', { headers: app.admin, query: { status: ['active'] } });
    expect(active.body).toEqual([]);
    const network = await app.api('GET', '/cms/v2/plugins', { headers: app.admin, query: { status: ['network-active'] } });
    expect(network.status).toBe(400);
    expect(network.body.code).toBe('rest_invalid_param');
  });

  it('answers a plugin not installed with 404 rest_plugin_not_found, and a name with a dot matches no route', async () => {
    const missing = await app.api('GET', '/cms/v2/plugins/akismet/akismet', { headers: app.admin });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(refusal('rest_plugin_not_found', 'Plugin not found.', 404));
    for (const id of ['hello.php', '..%2F..%2Fetc%2Fpasswd', 'a/b/c', '../reading-time']) {
      const response = await app.api('GET', `/cms/v2/plugins/${id}`, { headers: app.admin });
      expect(response.status, id).toBe(404);
      expect(response.body.code, id).toBe('rest_no_route');
    }
  });
});

describe('capabilities', () => {
  const manage = 'Sorry, you are not allowed to manage plugins for this site.';

  it('lists and reads for activate_plugins only: 401 anonymous, 403 editor and subscriber', async () => {
    for (const [headers, status] of [[{}, 401], [editor, 403], [subscriber, 403]] as const) {
      const list = await app.api('GET', '/cms/v2/plugins', { headers });
      expect(list.status).toBe(status);
      expect(list.body).toEqual(refusal('rest_cannot_view_plugins', manage, status));
      const one = await app.api('GET', '/cms/v2/plugins/reading-time/reading-time', { headers });
      expect(one.body).toEqual(refusal('rest_cannot_view_plugin', manage, status));
      // The permission check comes first: a caller who may not manage plugins never learns which are installed.
      const unknown = await app.api('GET', '/cms/v2/plugins/akismet/akismet', { headers });
      expect(unknown.body.code).toBe('rest_cannot_view_plugin');
    }
  });

  it('installs for install_plugins only', async () => {
    const anonymous = await install('reading-time', {}, {});
    expect(anonymous.body).toEqual(refusal('rest_cannot_install_plugin', 'Sorry, you are not allowed to install plugins on this site.', 401));
    const byEditor = await install('reading-time', { status: 'active' }, editor);
    expect(byEditor.body).toEqual(refusal('rest_cannot_install_plugin', 'Sorry, you are not allowed to install plugins on this site.', 403));
  });

  it('changes status for activate_plugins, deletes for activate_plugins and delete_plugins', async () => {
    for (const [headers, status] of [[{}, 401], [editor, 403]] as const) {
      const update = await app.api('POST', '/cms/v2/plugins/reading-time/reading-time', { headers, json: { status: 'active' } });
      expect(update.body).toEqual(refusal('rest_cannot_manage_plugins', manage, status));
      const remove = await app.api('DELETE', '/cms/v2/plugins/reading-time/reading-time', { headers });
      expect(remove.body).toEqual(refusal('rest_cannot_manage_plugins', manage, status));
    }
    expect((await app.api('GET', '/cms/v2/plugins/reading-time/reading-time', { headers: app.admin })).body.status).toBe('inactive');
  });

  it('shows in Allow only the methods the caller may use', async () => {
    const admin = await app.api('GET', '/cms/v2/plugins/reading-time/reading-time', { headers: app.admin });
    expect(admin.headers.get('allow')).toBe('GET, POST, PUT, PATCH, DELETE');
  });
});

describe('activating, deactivating and deleting', () => {
  it("adds an active plugin's block types to /block-types, in every process, and removes them when deactivated", async () => {
    const other = await startServiceOn(app.databaseName);
    try {
      const otherNames = async () => {
        const response = await fetch(`${other.siteUrl}/cms-json/cms/v2/block-types?_fields=name`, { headers: app.admin });
        expect(response.status).toBe(200);
        return ((await response.json()) as { name: string }[]).map((block) => block.name);
      };
      expect(await blockNames()).not.toContain('hello-blocks/greeting');
      expect(await otherNames()).not.toContain('hello-blocks/greeting');

      const activated = await app.api('POST', '/cms/v2/plugins/hello-blocks/hello-blocks', { headers: app.admin, json: { status: 'active' } });
      expect(activated.status).toBe(200);
      expect(activated.body.status).toBe('active');
      const names = await blockNames();
      expect(names.slice(-2)).toEqual(['hello-blocks/greeting', 'hello-blocks/notice']);
      expect(await otherNames()).toEqual(names);
      const namespace = await app.api('GET', '/cms/v2/block-types/hello-blocks', { headers: editor, query: { _fields: 'name' } });
      expect(namespace.body).toEqual([{ name: 'hello-blocks/greeting' }, { name: 'hello-blocks/notice' }]);

      // Deactivated through the other process: this one stops serving them at once.
      const response = await fetch(`${other.siteUrl}/cms-json/cms/v2/plugins/hello-blocks/hello-blocks`, {
        method: 'PUT',
        headers: { ...app.admin, 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: 'inactive' }),
      });
      expect(response.status).toBe(200);
      expect(await blockNames()).not.toContain('hello-blocks/greeting');
      const gone = await app.api('GET', '/cms/v2/block-types/hello-blocks/greeting', { headers: app.admin });
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe('rest_block_type_invalid');
      expect((await app.api('GET', '/cms/v2/block-types/hello-blocks', { headers: app.admin })).body).toEqual([]);
    } finally {
      await other.stop();
    }
  });

  it('serves a plugin block with its fields, handles generated for file: assets', async () => {
    await app.api('PATCH', '/cms/v2/plugins/hello-blocks/hello-blocks', { headers: app.admin, json: { status: 'active' } });
    const greeting = await app.api('GET', '/cms/v2/block-types/hello-blocks/greeting', { headers: editor });
    expect(greeting.status).toBe(200);
    expect(greeting.body).toMatchObject({
      name: 'hello-blocks/greeting',
      title: 'Greeting',
      icon: 'smiley',
      category: 'text',
      is_dynamic: false,
      textdomain: 'hello-blocks',
      style_handles: ['hello-blocks-greeting-style', 'hello-blocks-common'],
      style: 'hello-blocks-greeting-style',
      editor_style_handles: ['hello-blocks-editor'],
      editor_style: 'hello-blocks-editor',
      editor_script_handles: [],
      editor_script: null,
      attributes: { name: { type: 'string', default: 'friend' }, lock: { type: 'object' }, metadata: { type: 'object' } },
    });
    const notice = await app.api('GET', '/cms/v2/block-types/hello-blocks/notice', { headers: editor });
    expect(notice.body.is_dynamic).toBe(true);
    expect(notice.body.parent).toEqual(['core/group', 'core/column']);
    expect(notice.body._links['wp:render-block']).toEqual([{ href: `${app.apiRoot}/cms/v2/block-renderer/hello-blocks/notice?context=edit` }]);
  });

  it('refuses to delete an active plugin, and the same status again is a no-op', async () => {
    const again = await app.api('POST', '/cms/v2/plugins/hello-blocks/hello-blocks', { headers: app.admin, json: { status: 'active' } });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('active');
    const remove = await app.api('DELETE', '/cms/v2/plugins/hello-blocks/hello-blocks', { headers: app.admin });
    expect(remove.status).toBe(400);
    expect(remove.body).toEqual(refusal('rest_cannot_delete_active_plugin', 'Cannot delete an active plugin. Please deactivate it first.', 400));
    expect((await storedPlugins()).map((doc) => doc._id)).toContain('hello-blocks/hello-blocks');
  });

  it('refuses a status that is not inactive or active, and a plugin not installed', async () => {
    const bad = await app.api('POST', '/cms/v2/plugins/hello-blocks/hello-blocks', { headers: app.admin, json: { status: 'network-active' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('rest_invalid_param');
    const missing = await app.api('POST', '/cms/v2/plugins/akismet/akismet', { headers: app.admin, json: { status: 'active' } });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('rest_plugin_not_found');
    const deleteMissing = await app.api('DELETE', '/cms/v2/plugins/akismet/akismet', { headers: app.admin });
    expect(deleteMissing.body.code).toBe('rest_plugin_not_found');
  });

  it('activates a network_only plugin on this single site, as WordPress does outside a network', async () => {
    const { status, body } = await app.api('POST', '/cms/v2/plugins/network-tools/network-tools', { headers: app.admin, json: { status: 'active' } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'active', network_only: true });
  });

  it('deletes an inactive plugin: 200 with the previous plugin, then 404', async () => {
    const { status, body } = await app.api('DELETE', '/cms/v2/plugins/reading-time/reading-time', { headers: app.admin });
    expect(status).toBe(200);
    expect(body.deleted).toBe(true);
    expect(body.previous).toMatchObject({ plugin: 'reading-time/reading-time', status: 'inactive', name: 'Reading Time' });
    expect(body.previous._links).toBeUndefined();
    expect((await app.api('GET', '/cms/v2/plugins/reading-time/reading-time', { headers: app.admin })).status).toBe(404);
    // Installable again once deleted.
    expect((await install('reading-time', { status: 'active' })).body.status).toBe('active');
  });
});

describe('packages that are refused whole', () => {
  let directory: string;
  let broken: TestApp;

  const write = (relative: string, content: unknown) => {
    const file = path.join(directory, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  };
  const manifest = { name: 'Test', version: '1.0.0' };
  const block = (name: string, extra: Record<string, unknown> = {}) => ({ name, title: 'A block', ...extra });

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'plugin-directory-'));
    write('fine/plugin.json', manifest);
    write('fine/blocks/one/block.json', block('fine/one'));
    write('no-manifest/readme.txt', 'nothing here');
    write('bad-json/plugin.json', '{"name": ');
    write('bad-manifest/plugin.json', { name: 'Bad', version: '1', network_only: 'yes' });
    write('unknown-field/plugin.json', { ...manifest, run: 'rm -rf /' });
    write('bad-block/plugin.json', manifest);
    write('bad-block/blocks/one/block.json', block('bad-block/one'));
    write('bad-block/blocks/two/block.json', { name: 'Not A Name', title: 'Two' });
    write('no-block-json/plugin.json', manifest);
    write('no-block-json/blocks/one/render.html', '<p></p>');
    write('core-clash/plugin.json', manifest);
    write('core-clash/blocks/paragraph/block.json', block('core/paragraph'));
    write('plugin-clash/plugin.json', manifest);
    write('plugin-clash/blocks/one/block.json', block('fine/one'));
    write('escaping-asset/plugin.json', manifest);
    write('escaping-asset/blocks/one/block.json', block('escaping-asset/one', { style: 'file:../../../../etc/passwd' }));
    write('absolute-asset/plugin.json', manifest);
    write('absolute-asset/blocks/one/block.json', block('absolute-asset/one', { render: 'file:/etc/passwd' }));
    write('linked-file/plugin.json', manifest);
    fs.symlinkSync('/etc/passwd', path.join(directory, 'linked-file', 'notes.txt'));
    write('linked-manifest/readme.txt', '');
    fs.symlinkSync(path.join(directory, 'fine', 'plugin.json'), path.join(directory, 'linked-manifest', 'plugin.json'));
    fs.symlinkSync(path.join(directory, 'fine'), path.join(directory, 'linked-package'));
    write('too-large/plugin.json', manifest);
    write('too-large/big.txt', 'x'.repeat(600 * 1024));
    broken = await createTestApp({ env: { CMS_PLUGIN_DIRECTORY: directory } });
  });
  afterAll(async () => {
    await broken?.stop();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('installs the well-formed package of the directory CMS_PLUGIN_DIRECTORY names', async () => {
    const { status, body } = await broken.api('POST', '/cms/v2/plugins', { headers: broken.admin, json: { slug: 'fine', status: 'active' } });
    expect(status).toBe(201);
    expect(body).toMatchObject({ plugin: 'fine/fine', status: 'active', name: 'Test' });
    const one = await broken.api('GET', '/cms/v2/block-types/fine/one', { headers: broken.admin });
    expect(one.status).toBe(200);
    // The default directory's packages are not in this one.
    expect((await broken.api('POST', '/cms/v2/plugins', { headers: broken.admin, json: { slug: 'hello-blocks' } })).status).toBe(404);
  });

  it.each([
    ['no-manifest', 'plugin.json', 'is missing'],
    ['bad-json', 'plugin.json', 'is not valid JSON'],
    ['bad-manifest', 'plugin.json', '/network_only must be boolean'],
    ['unknown-field', 'plugin.json', 'must NOT have additional properties (run)'],
    ['bad-block', 'blocks/two/block.json', '/name must match pattern'],
    ['no-block-json', 'blocks/one/block.json', 'is missing'],
    ['core-clash', 'blocks/paragraph/block.json', 'core/paragraph, a core block type'],
    ['plugin-clash', 'blocks/one/block.json', 'fine/one, a block type of the installed plugin fine/fine'],
    ['escaping-asset', 'blocks/one/block.json', 'style names a file outside the block\'s folder (parent)'],
    ['absolute-asset', 'blocks/one/block.json', 'render names a file outside the block\'s folder (absolute)'],
    ['linked-file', 'notes.txt', 'is a symbolic link'],
    ['linked-manifest', 'plugin.json', 'is a symbolic link'],
    ['linked-package', 'linked-package', 'is a symbolic link'],
    ['too-large', 'big.txt', 'is larger than'],
  ])('refuses %s with 400 incompatible_archive naming %s, and stores nothing', async (slug, file, problem) => {
    const { status, body } = await broken.api('POST', '/cms/v2/plugins', { headers: broken.admin, json: { slug } });
    expect(status).toBe(400);
    expect(body.code).toBe('incompatible_archive');
    expect(body.data.file).toBe(file);
    expect(body.data.problem).toContain(problem);
    expect(body.message).toContain(`${file} ${body.data.problem}`);
    const stored = await broken.deps.store.db.collection('plugins').find({}).toArray();
    expect(stored.map((doc) => doc._id)).toEqual(['fine/fine']);
  });
});
