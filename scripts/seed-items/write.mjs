// The e-commerce seed's write code (shared/seeds/dynamodb-design-patterns.md, "Single Table
// Design", "クエリ実装" and "TTL によるデータライフサイクル管理"), run against DynamoDB Local; then
// every item in the table is printed as DynamoDB JSON (a raw Scan, sorted by PK and SK).
//
// The functions between the "seed code" markers are the seed's TypeScript with its type
// annotations stripped (and `export`-free), nothing else changed. The seed declares no write of a
// user, so users are written with the seed's `createUserItem` through a plain PutCommand; the
// table is created as the seed's Terraform declares it (PK/SK, GSI1 and GSI2 projecting ALL).
//
// Environment: AWS_ENDPOINT_URL_DYNAMODB (the DynamoDB Local endpoint), TABLE_NAME.

import { CreateTableCommand, DynamoDBClient, ScanCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, PutCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";

// ---- seed code ------------------------------------------------------------------------------

const TABLE_NAME = process.env.TABLE_NAME;

// ユーザーエンティティ
function createUserItem(user) {
  return {
    PK: `USER#${user.id}`,
    SK: "PROFILE",
    GSI1PK: `EMAIL#${user.email}`,
    GSI1SK: `USER#${user.id}`,
    entityType: "User",
    id: user.id,
    name: user.name,
    email: user.email,
    createdAt: user.createdAt,
  };
}

// 注文エンティティ
function createOrderItem(order) {
  return {
    PK: `ORDER#${order.id}`,
    SK: "METADATA",
    GSI1PK: `STATUS#${order.status}`,
    GSI1SK: order.createdAt,
    GSI2PK: `USER#${order.userId}`,
    GSI2SK: `ORDER#${order.createdAt}`,
    entityType: "Order",
    id: order.id,
    userId: order.userId,
    status: order.status,
    totalAmount: order.totalAmount,
    createdAt: order.createdAt,
  };
}

// ユーザーの注文一覧にもアイテムを配置(非正規化)
function createUserOrderItem(order) {
  return {
    PK: `USER#${order.userId}`,
    SK: `ORDER#${order.createdAt}#${order.id}`,
    entityType: "UserOrder",
    orderId: order.id,
    status: order.status,
    totalAmount: order.totalAmount,
    createdAt: order.createdAt,
  };
}

// ステータス別注文検索(GSI1使用)
async function getOrdersByStatus(client, status, since) {
  const result = await client.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      IndexName: "GSI1",
      KeyConditionExpression: "GSI1PK = :pk AND GSI1SK >= :since",
      ExpressionAttributeValues: {
        ":pk": `STATUS#${status}`,
        ":since": since,
      },
    }),
  );

  return (result.Items ?? []);
}

// トランザクション(注文作成: 複数アイテムを一括書き込み)
async function createOrder(client, order, items) {
  const transactItems = [
    // 注文メタデータ
    {
      Put: {
        TableName: TABLE_NAME,
        Item: createOrderItem(order),
        ConditionExpression: "attribute_not_exists(PK)",  // 冪等性
      },
    },
    // ユーザーの注文一覧用アイテム
    {
      Put: {
        TableName: TABLE_NAME,
        Item: createUserOrderItem(order),
      },
    },
    // 注文商品
    ...items.map((item) => ({
      Put: {
        TableName: TABLE_NAME,
        Item: {
          PK: `ORDER#${order.id}`,
          SK: `ITEM#${item.id}`,
          entityType: "OrderItem",
          ...item,
        },
      },
    })),
  ];

  await client.send(new TransactWriteCommand({ TransactItems: transactItems }));
}

// セッションデータに TTL を設定
async function createSession(client, session) {
  const ttlSeconds = Math.floor(Date.now() / 1000) + 24 * 60 * 60; // 24時間後

  await client.send(
    new PutCommand({
      TableName: TABLE_NAME,
      Item: {
        PK: `SESSION#${session.id}`,
        SK: "DATA",
        entityType: "Session",
        userId: session.userId,
        data: session.data,
        expiresAt: ttlSeconds,  // Unix epoch (秒)
        createdAt: new Date().toISOString(),
      },
    }),
  );
}

// ---- end of seed code -----------------------------------------------------------------------

const base = new DynamoDBClient({
  endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
  region: "us-east-1",
  credentials: { accessKeyId: "local", secretAccessKey: "local" },
});
const client = DynamoDBDocumentClient.from(base);

// The table of the seed's Terraform (`aws_dynamodb_table.main`).
const S = (name) => ({ AttributeName: name, AttributeType: "S" });
const gsi = (n) => ({
  IndexName: `GSI${n}`,
  KeySchema: [
    { AttributeName: `GSI${n}PK`, KeyType: "HASH" },
    { AttributeName: `GSI${n}SK`, KeyType: "RANGE" },
  ],
  Projection: { ProjectionType: "ALL" },
});
await base.send(
  new CreateTableCommand({
    TableName: TABLE_NAME,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [S("PK"), S("SK"), S("GSI1PK"), S("GSI1SK"), S("GSI2PK"), S("GSI2SK")],
    KeySchema: [
      { AttributeName: "PK", KeyType: "HASH" },
      { AttributeName: "SK", KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [gsi(1), gsi(2)],
  }),
);

// Sample data. `sales#jp@example.com`: an address with `#`, written into GSI1PK as it is.
const users = [
  { id: "u-alice", name: "Alice", email: "alice@example.com", createdAt: "2024-01-10T09:00:00.000Z" },
  { id: "u-sales-jp", name: "Sales JP", email: "sales#jp@example.com", createdAt: "2024-01-11T09:00:00.000Z" },
];
for (const user of users) {
  await client.send(new PutCommand({ TableName: TABLE_NAME, Item: createUserItem(user) }));
}
await createOrder(
  client,
  { id: "o-1001", userId: "u-alice", status: "PENDING", totalAmount: 3500, createdAt: "2024-01-15T10:30:00.000Z" },
  [
    { id: "i-1", productName: "Keyboard", quantity: 1, unitPrice: 3000 },
    { id: "i-2", productName: "Cable", quantity: 2, unitPrice: 250 },
  ],
);
await createOrder(
  client,
  { id: "o-1002", userId: "u-alice", status: "SHIPPED", totalAmount: 1200, createdAt: "2024-02-01T08:00:00.000Z" },
  [{ id: "i-1", productName: "Mouse", quantity: 1, unitPrice: 1200 }],
);
await createOrder(
  client,
  { id: "o-1003", userId: "u-sales-jp", status: "PENDING", totalAmount: 500, createdAt: "2024-03-01T12:00:00.000Z" },
  [{ id: "i-1", productName: "Pen", quantity: 5, unitPrice: 100 }],
);
await createSession(client, { id: "s-1", userId: "u-alice", data: { cart: "o-1001", theme: "dark" } });

// The seed's own read, as a check that the data is what the design expects.
const pending = await getOrdersByStatus(client, "PENDING", "2024-01-01T00:00:00.000Z");
if (pending.length !== 2) {
  throw new Error(`getOrdersByStatus(PENDING) found ${pending.length} orders, expected 2`);
}

// Every item, as DynamoDB JSON, in a stable order.
const items = [];
let start;
do {
  const page = await base.send(new ScanCommand({ TableName: TABLE_NAME, ExclusiveStartKey: start }));
  items.push(...(page.Items ?? []));
  start = page.LastEvaluatedKey;
} while (start);
const key = (item) => `${item.PK.S}\u0000${item.SK.S}`;
items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
const sorted = items.map((item) => Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1))));
process.stdout.write(JSON.stringify(sorted, null, 2) + "\n");
